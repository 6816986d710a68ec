//! The RM client and rmadmin against test-double replicas over real mutual TLS.
//!
//! One test binary (with these modules) to save link time.

mod failover;
mod rmadmin;
mod support;

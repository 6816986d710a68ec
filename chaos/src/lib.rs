//! The yarn-ha chaos harness: starts clusters of real processes, injects faults from a seeded
//! schedule, and checks that nothing was lost.
//!
//! Nothing depends on this crate; it may depend on every other one. As a harness (not a
//! library other crates build on) it reports errors with `anyhow`.
//!
//! Today it holds [`ClusterLayout`], which lays out a local cluster on loopback: a PKI, one
//! configuration directory per daemon with distinct ports, and storage directories. The
//! `minicluster` command and the fault drills start processes on it in the RM-replicas and
//! chaos work.
//!
//! ```text
//!   <base>/pki/                     cluster CA, one certificate per RM, NM and the user
//!   <base>/rm1/conf/yarn-site.xml   shared keys + yarn.resourcemanager.ha.id and rm1's cert
//!   <base>/rm1/raft/                rm1's Raft storage
//!   <base>/nm1/conf/yarn-site.xml   shared keys + nm1's addresses, dirs and cert
//!   <base>/client/conf/yarn-site.xml  shared keys + the user's cert, for CLI calls
//! ```

mod cluster_layout;

pub use cluster_layout::{ClusterLayout, NmLayout, RmLayout};

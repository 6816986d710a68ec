//! Fixtures shared by yarn-ha's tests. A dev-dependency only: no daemon or library links it.
//!
//! - [`byte_mutation`]: small corruptions of encoded messages, for property tests of decoders
//!   that take bytes from a peer;
//! - [`poll`]: waits that poll with a deadline.

pub mod byte_mutation;
pub mod poll;

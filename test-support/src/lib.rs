//! Fixtures shared by yarn-ha's tests. A dev-dependency only: no daemon or library links it.
//!
//! - [`byte_mutation`]: small corruptions of encoded messages, for property tests of decoders
//!   that take bytes from a peer;
//! - [`poll`]: waits that poll with a deadline;
//! - `pki` (feature `pki`): a cluster CA and the leaf certificates a test asks for, in a
//!   temporary directory, with their files, TLS settings and `yarn.tls.*` keys.

pub mod byte_mutation;
#[cfg(feature = "pki")]
pub mod pki;
pub mod poll;

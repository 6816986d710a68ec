//! Fixtures shared by yarn-ha's tests. A dev-dependency only: no daemon or library links it.
//!
//! - [`byte_mutation`]: small corruptions of encoded messages, for property tests of decoders
//!   that take bytes from a peer;
//! - [`poll`]: waits that poll with a deadline;
//! - `pki` (feature `pki`): a cluster CA and the leaf certificates a test asks for, in a
//!   temporary directory, with their files, TLS settings and `yarn.tls.*` keys;
//! - `rm_cluster` (feature `rm-cluster`): ResourceManager replicas in the test's process over
//!   mutual TLS on 127.0.0.1, each on fixed ports and storage so it can be stopped and started
//!   again, with Raft links the test can cut, the wait for the serving leader, a client of each
//!   protocol, AMRMTokens as the AM launcher signs them and stand-in NodeManager registrations.

pub mod byte_mutation;
#[cfg(feature = "pki")]
pub mod pki;
pub mod poll;
#[cfg(feature = "rm-cluster")]
pub mod rm_cluster;

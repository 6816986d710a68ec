//! The Hadoop IPC server over real sockets, driven by a client built from the crate's codec.

mod client;
mod digest_client;
mod dispatcher;
mod sessions;
mod token;

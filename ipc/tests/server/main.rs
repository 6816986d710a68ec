//! The Hadoop IPC server over real sockets, driven by a client built from the crate's codec.

mod client;
mod dispatcher;
mod ipc_client;
mod sessions;
mod token;

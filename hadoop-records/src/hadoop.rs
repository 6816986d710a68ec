//! Hadoop's own messages, generated from `proto/` (Hadoop 3.5.0's names, numbers, types,
//! labels and defaults). prost reads absent `optional` fields as `None` (with accessors that
//! return Hadoop's defaults) and always encodes `required` scalars.

/// Package `hadoop.common`: the token every YARN record carries, the IPC crate's own.
pub mod common {
    pub use yarn_ipc::pb::TokenProto;
}

/// Package `hadoop.yarn`: YARN's records and protocol messages.
pub mod yarn {
    include!(concat!(env!("OUT_DIR"), "/hadoop.yarn.rs"));
}

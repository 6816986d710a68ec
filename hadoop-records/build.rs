//! Compiles Hadoop's YARN messages (proto2, package `hadoop.yarn`) under `proto/` with protox, a
//! pure-Rust protobuf compiler, so no system `protoc` is needed. Messages only: Hadoop IPC has no
//! gRPC services. The token they carry, `hadoop.common.TokenProto`, is the IPC crate's: its file
//! is read from `../ipc/proto` and its type is `yarn_ipc::pb::TokenProto`.
//!
//! The compiled descriptor set is also written to `OUT_DIR/hadoop_descriptors.bin`, so that the
//! wire-compatibility test can compare Hadoop's messages with yarn-ha's field by field.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from("proto");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "proto"))
        .collect();
    files.sort();
    let ipc_dir = PathBuf::from("../ipc/proto");
    println!("cargo:rerun-if-changed=proto");
    println!("cargo:rerun-if-changed=../ipc/proto/security.proto");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let descriptors = protox::compile(&files, [&dir, &ipc_dir])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("hadoop_descriptors.bin"),
        descriptors.encode_to_vec(),
    )?;
    prost_build::Config::new()
        .bytes(["."])
        .extern_path(".hadoop.common", "::yarn_ipc::pb")
        .compile_fds(descriptors)?;
    Ok(())
}

//! Compiles Hadoop's YARN messages (proto2, packages `hadoop.yarn` and `hadoop.common`) under
//! `proto/` with protox, a pure-Rust protobuf compiler, so no system `protoc` is needed. Messages
//! only: Hadoop IPC has no gRPC services.
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
    println!("cargo:rerun-if-changed=proto");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let descriptors = protox::compile(&files, [&dir])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("hadoop_descriptors.bin"),
        descriptors.encode_to_vec(),
    )?;
    prost_build::Config::new()
        .bytes(["."])
        .compile_fds(descriptors)?;
    Ok(())
}

//! Compiles every `.proto` file under `proto/proto/` with protox (a pure-Rust protobuf compiler),
//! so no system `protoc` is ever needed.

use std::path::PathBuf;

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
    tonic_prost_build::configure()
        // Maps encode in key order, so one message always encodes to the same bytes: a
        // simulated seed replays to the same state digests, and anything hashed or compared
        // as bytes does not depend on a process's hash seed.
        .btree_map(".")
        .build_server(true)
        .build_client(true)
        .compile_fds(descriptors)?;
    Ok(())
}

//! The two descriptor sets the comparison reads: Hadoop's (compiled by this crate's build script
//! from `proto/`) and yarn-ha's (compiled here from the yarn-proto crate's `proto/`, which does
//! not export its descriptors).

use std::path::PathBuf;

use prost::Message;
use prost_types::{DescriptorProto, EnumDescriptorProto, FileDescriptorSet};

/// Every message and enum of one descriptor set, by full name without the leading dot.
pub struct Pool {
    pub messages: std::collections::HashMap<String, DescriptorProto>,
    pub enums: std::collections::HashMap<String, EnumDescriptorProto>,
}

impl Pool {
    fn of(set: &FileDescriptorSet) -> Self {
        let mut pool = Pool {
            messages: Default::default(),
            enums: Default::default(),
        };
        for file in &set.file {
            let package = file.package();
            for message in &file.message_type {
                pool.add_message(package, message);
            }
            for e in &file.enum_type {
                pool.enums
                    .insert(format!("{package}.{}", e.name()), e.clone());
            }
        }
        pool
    }

    fn add_message(&mut self, scope: &str, message: &DescriptorProto) {
        let name = format!("{scope}.{}", message.name());
        for nested in &message.nested_type {
            self.add_message(&name, nested);
        }
        for e in &message.enum_type {
            self.enums.insert(format!("{name}.{}", e.name()), e.clone());
        }
        self.messages.insert(name, message.clone());
    }

    /// The message named by a field's `type_name` (".pkg.Name").
    pub fn message(&self, type_name: &str) -> &DescriptorProto {
        let name = type_name.trim_start_matches('.');
        self.messages
            .get(name)
            .unwrap_or_else(|| panic!("no message {name}"))
    }

    /// The enum named by a field's `type_name`.
    pub fn enumeration(&self, type_name: &str) -> &EnumDescriptorProto {
        let name = type_name.trim_start_matches('.');
        self.enums
            .get(name)
            .unwrap_or_else(|| panic!("no enum {name}"))
    }
}

/// Hadoop's messages, as this crate compiled them.
pub fn hadoop() -> Pool {
    let bytes = include_bytes!(concat!(env!("OUT_DIR"), "/hadoop_descriptors.bin"));
    let set =
        FileDescriptorSet::decode(&bytes[..]).expect("the build script wrote a descriptor set");
    Pool::of(&set)
}

/// yarn-ha's messages, compiled from the yarn-proto crate's `.proto` files.
pub fn yarn_ha() -> Pool {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../proto/proto");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("yarn-proto's proto directory")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "proto"))
        .collect();
    files.sort();
    let set = protox::compile(&files, [&dir]).expect("yarn-proto's files compile");
    Pool::of(&set)
}

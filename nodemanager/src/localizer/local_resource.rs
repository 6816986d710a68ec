//! [`LocalResource`]: one file a launch context asks the NodeManager to localize.

use yarn_proto::pb;

use super::{ResourceType, ResourceVisibility};

/// A `LocalResourceProto` as the NodeManager keeps and localizes it: where the file is, what
/// the client saw of it when it submitted the container, how to unpack it and who may share
/// the localized copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalResource {
    /// The source as a URL string, such as `file:/home/u/.sparkStaging/<app>/__app__.jar`.
    pub url: String,
    /// The source's length in bytes as the client saw it.
    pub size: i64,
    /// The source's modification time in milliseconds since the Unix epoch as the client saw
    /// it; localization refuses a source whose time differs, as Hadoop does.
    pub timestamp_ms: i64,
    /// Whether the file is copied or unpacked.
    pub resource_type: ResourceType,
    /// Which containers may share the localized copy.
    pub visibility: ResourceVisibility,
    /// For [`ResourceType::Pattern`]: the regular expression the names of the entries to
    /// unpack must match as a whole; empty matches every entry.
    pub pattern: String,
}

impl From<&pb::LocalResourceProto> for LocalResource {
    fn from(proto: &pb::LocalResourceProto) -> Self {
        Self {
            url: proto.resource.clone(),
            size: proto.size,
            timestamp_ms: proto.timestamp,
            resource_type: proto.r#type().into(),
            visibility: proto.visibility().into(),
            pattern: proto.pattern.clone(),
        }
    }
}

//! [`ResourceType`]: how a localized file is made available, YARN's `LocalResourceType`.

use yarn_proto::pb;

/// How a resource's source becomes the container's file, as YARN's `LocalResourceType` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceType {
    /// Copied as it is (a directory with everything in it).
    File,
    /// Unpacked into a directory: `.jar`, `.zip`, `.tar`, `.tar.gz`, `.tgz`.
    Archive,
    /// A `.jar` whose entries matching the resource's pattern are unpacked into a directory
    /// that also keeps the jar itself; other archives are unpacked whole.
    Pattern,
}

impl ResourceType {
    /// The name YARN gives the type, for cache keys and messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::File => "FILE",
            Self::Archive => "ARCHIVE",
            Self::Pattern => "PATTERN",
        }
    }
}

/// An unset type is a FILE, as YARN's default.
impl From<pb::LocalResourceTypeProto> for ResourceType {
    fn from(proto: pb::LocalResourceTypeProto) -> Self {
        match proto {
            pb::LocalResourceTypeProto::LocalResourceTypeUnspecified
            | pb::LocalResourceTypeProto::File => Self::File,
            pb::LocalResourceTypeProto::Archive => Self::Archive,
            pb::LocalResourceTypeProto::Pattern => Self::Pattern,
        }
    }
}

//! [`ResourceVisibility`]: who shares a localized copy, YARN's `LocalResourceVisibility`.

use yarn_proto::pb;

/// Which containers may share one localized copy of a resource, as YARN's
/// `LocalResourceVisibility` says; it chooses the cache the copy lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceVisibility {
    /// Every container of the node; the source must be readable by everyone.
    Public,
    /// The containers of the same user.
    Private,
    /// The containers of the same application; the copy goes when the application finishes.
    Application,
}

/// An unset visibility is APPLICATION, as YARN's default.
impl From<pb::LocalResourceVisibilityProto> for ResourceVisibility {
    fn from(proto: pb::LocalResourceVisibilityProto) -> Self {
        match proto {
            pb::LocalResourceVisibilityProto::Public => Self::Public,
            pb::LocalResourceVisibilityProto::Private => Self::Private,
            pb::LocalResourceVisibilityProto::LocalResourceVisibilityUnspecified
            | pb::LocalResourceVisibilityProto::Application => Self::Application,
        }
    }
}

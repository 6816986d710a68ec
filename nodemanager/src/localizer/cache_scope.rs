//! [`CacheScope`]: which cache a localized copy lives in, after Hadoop's
//! `ResourceLocalizationService` layout.

use std::path::{Path, PathBuf};

use yarn_proto::ids::ApplicationId;

use super::ResourceVisibility;

/// The cache a resource's visibility puts its copy in, and so who shares the copy.
///
/// ```text
/// <local-dir>/filecache/                                   PUBLIC: every container
/// <local-dir>/usercache/<user>/filecache/                  PRIVATE: the user's containers
/// <local-dir>/usercache/<user>/appcache/<app>/filecache/   APPLICATION: the application's
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheScope<'a> {
    /// The node-wide cache.
    Public,
    /// The cache of one user.
    Private {
        /// The user.
        user: &'a str,
    },
    /// The cache of one application.
    Application {
        /// The application's user.
        user: &'a str,
        /// The application.
        application_id: ApplicationId,
    },
}

impl<'a> CacheScope<'a> {
    /// The scope of a resource with `visibility` for a container of `application_id` run by
    /// `user`, a name [`ContainerPaths`](crate::executor) has already checked.
    pub(crate) fn of(
        visibility: ResourceVisibility,
        user: &'a str,
        application_id: ApplicationId,
    ) -> Self {
        match visibility {
            ResourceVisibility::Public => Self::Public,
            ResourceVisibility::Private => Self::Private { user },
            ResourceVisibility::Application => Self::Application {
                user,
                application_id,
            },
        }
    }

    /// The cache's directory in `local_dir`.
    pub(crate) fn root(&self, local_dir: &Path) -> PathBuf {
        match self {
            Self::Public => local_dir.join("filecache"),
            Self::Private { user } => local_dir.join("usercache").join(user).join("filecache"),
            Self::Application {
                user,
                application_id,
            } => Self::application_cache(local_dir, user, *application_id),
        }
    }

    /// The cache of `application_id` run by `user` in `local_dir`, removed when the
    /// application finishes.
    pub(crate) fn application_cache(
        local_dir: &Path,
        user: &str,
        application_id: ApplicationId,
    ) -> PathBuf {
        local_dir
            .join("usercache")
            .join(user)
            .join("appcache")
            .join(application_id.to_string())
            .join("filecache")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_visibility_has_hadoops_directory() {
        let app = ApplicationId::new(1_700_000_000_000, 7);
        let local = Path::new("/l1");
        let root = |visibility| CacheScope::of(visibility, "alice", app).root(local);
        assert_eq!(
            root(ResourceVisibility::Public),
            PathBuf::from("/l1/filecache")
        );
        assert_eq!(
            root(ResourceVisibility::Private),
            PathBuf::from("/l1/usercache/alice/filecache")
        );
        assert_eq!(
            root(ResourceVisibility::Application),
            PathBuf::from("/l1/usercache/alice/appcache/application_1700000000000_0007/filecache")
        );
    }
}

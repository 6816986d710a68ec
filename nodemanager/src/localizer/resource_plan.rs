//! [`ResourcePlan`]: where one resource comes from and where its copy and link go, decided
//! before any disk is touched.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use yarn_proto::ids::ApplicationId;

use super::source_url::file_url_path;
use super::{CacheKey, CacheScope, LinkName, LocalResource, LocalizationError};

/// One resource of one container, checked and placed:
///
/// ```text
/// <work dir>/<link> ──symlink──> <cache>/<key dir>/<source file name>
///                                 (a file, a copied directory, or an unpacked archive's
///                                  directory)
/// ```
///
/// The cache is the one the resource's visibility chooses ([`CacheScope`]) in the node's
/// first local directory; the key directory is named by the [`CacheKey`]. Keeping the
/// source's own file name under it, as Hadoop does, keeps an archive's extension visible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourcePlan {
    /// Where the container finds the resource.
    pub(crate) link: LinkName,
    /// The local file the URL names.
    pub(crate) source: PathBuf,
    /// The key directory, which exists only once the copy is complete.
    pub(crate) entry_dir: PathBuf,
    /// The source's file name, which the copy keeps.
    pub(crate) file_name: String,
}

impl ResourcePlan {
    /// Plans `resource`, found under `link` in the launch context of a container of
    /// `application_id` run by `user`, with its caches in `local_dir`.
    ///
    /// # Errors
    ///
    /// [`LocalizationError::InvalidLinkName`], [`LocalizationError::UnsupportedScheme`] and
    /// [`LocalizationError::InvalidUrl`] (also for a URL whose path names no file, such as
    /// `file:/`).
    pub(crate) fn new(
        link: &str,
        resource: &LocalResource,
        local_dir: &Path,
        user: &str,
        application_id: ApplicationId,
    ) -> Result<Self, LocalizationError> {
        let link = LinkName::parse(link)?;
        let source = file_url_path(link.as_str(), &resource.url)?;
        let file_name = source
            .file_name()
            .and_then(|name| name.to_str())
            .filter(|name| *name != "..")
            .ok_or_else(|| LocalizationError::InvalidUrl {
                link: link.as_str().to_owned(),
                url: resource.url.clone(),
                reason: "its path names no file",
            })?
            .to_owned();
        let entry_dir = CacheScope::of(resource.visibility, user, application_id)
            .root(local_dir)
            .join(CacheKey::of(resource).dir_name());
        Ok(Self {
            link,
            source,
            entry_dir,
            file_name,
        })
    }

    /// The localized copy, which the container's link points to.
    pub(crate) fn localized(&self) -> PathBuf {
        self.entry_dir.join(&self.file_name)
    }

    /// Where the copy is made before it is renamed to the key directory, so that a copy cut
    /// short (by a failure or a crash) is never taken for a complete one.
    pub(crate) fn staging_dir(&self) -> PathBuf {
        let mut name = OsString::from(self.entry_dir.as_os_str());
        name.push("_tmp");
        PathBuf::from(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localizer::{ResourceType, ResourceVisibility};

    fn resource(url: &str, visibility: ResourceVisibility) -> LocalResource {
        LocalResource {
            url: url.to_owned(),
            size: 3,
            timestamp_ms: 5,
            resource_type: ResourceType::Archive,
            visibility,
            pattern: String::new(),
        }
    }

    #[test]
    fn the_copy_keeps_the_source_name_under_its_key_in_the_visibilitys_cache() {
        let app = ApplicationId::new(1_700_000_000_000, 1);
        let resource = resource(
            "file:///home/u/.sparkStaging/application_1700000000000_0001/__spark_conf__.zip",
            ResourceVisibility::Private,
        );
        let plan =
            ResourcePlan::new("__spark_conf__", &resource, Path::new("/l"), "u", app).unwrap();
        let key = CacheKey::of(&resource).dir_name();
        assert_eq!(plan.link.path(), Path::new("__spark_conf__"));
        assert_eq!(
            plan.source,
            PathBuf::from(
                "/home/u/.sparkStaging/application_1700000000000_0001/__spark_conf__.zip"
            )
        );
        assert_eq!(
            plan.entry_dir,
            PathBuf::from(format!("/l/usercache/u/filecache/{key}"))
        );
        assert_eq!(
            plan.localized(),
            PathBuf::from(format!("/l/usercache/u/filecache/{key}/__spark_conf__.zip"))
        );
        assert_eq!(
            plan.staging_dir(),
            PathBuf::from(format!("/l/usercache/u/filecache/{key}_tmp"))
        );
    }

    #[test]
    fn bad_links_and_urls_are_refused_before_anything_is_touched() {
        let app = ApplicationId::new(1, 1);
        let plan = |link: &str, url: &str| {
            ResourcePlan::new(
                link,
                &resource(url, ResourceVisibility::Public),
                Path::new("/l"),
                "u",
                app,
            )
        };
        assert!(matches!(
            plan("../x", "file:/a"),
            Err(LocalizationError::InvalidLinkName { .. })
        ));
        assert!(matches!(
            plan("x", "http://h/a"),
            Err(LocalizationError::UnsupportedScheme { .. })
        ));
        assert!(matches!(
            plan("x", "file:/"),
            Err(LocalizationError::InvalidUrl {
                reason: "its path names no file",
                ..
            })
        ));
    }
}

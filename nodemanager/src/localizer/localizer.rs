//! [`Localizer`]: makes a container's local resources available in its working directory,
//! after Hadoop's `ResourceLocalizationService`.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use yarn_proto::ids::ApplicationId;

use super::fetch::fetch_once;
use super::{CacheScope, KeyLocks, LinkName, LocalResource, LocalizationError, ResourcePlan};

/// One resource made available to a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Localized {
    /// Where the container finds it, relative to its working directory.
    pub link: LinkName,
    /// The cached copy the link points to.
    pub path: PathBuf,
    /// Whether this call copied or unpacked it; `false` when an earlier container's copy was
    /// reused.
    pub fresh: bool,
}

/// The node's localizer: copies and unpacks `file:` resources into caches in the first local
/// directory and links them into containers' working directories.
///
/// Guarantees:
/// - a container's links exist only if every one of its resources was localized; the first
///   failure is returned, naming the resource, and fails only that container;
/// - a copy is made at most once per cache entry ([`CacheScope`] and
///   [`CacheKey`](super::CacheKey)): containers asking for the same resource at the same time
///   wait for one copy and share it, and later containers reuse it, also after a restart;
/// - a cache entry that exists is complete, sealed read-only and holds nothing that reaches
///   outside it;
/// - copies, unpacking and removals run on Tokio's blocking threads, never on the runtime's.
///
/// PUBLIC and PRIVATE copies stay for the node's life (there is no eviction by size, as
/// Hadoop's `yarn.nodemanager.localizer.cache.target-size-mb` does); APPLICATION copies go
/// with [`remove_application_cache`](Self::remove_application_cache).
#[derive(Debug)]
pub struct Localizer {
    local_dirs: Vec<PathBuf>,
    locks: KeyLocks,
}

impl Localizer {
    /// A localizer over the node's `local_dirs` (absolute, at least one, as
    /// [`NmConfig`](crate::NmConfig) guarantees); caches live in the first.
    pub fn new(local_dirs: Vec<PathBuf>) -> Self {
        Self {
            local_dirs,
            locks: KeyLocks::default(),
        }
    }

    /// Localizes `resources` (by link name) for a container of `application_id` run by `user`
    /// (a name [`ContainerPaths`](crate::executor) accepted) and links each into `work_dir`,
    /// which exists. A link left by an earlier launch of the same container is replaced.
    ///
    /// Every link name and URL is checked before anything is copied.
    ///
    /// # Errors
    ///
    /// The first [`LocalizationError`]: a bad link name or URL, a missing, unreadable,
    /// changed or (for PUBLIC) not public source, an archive that cannot be unpacked safely,
    /// or a failed write.
    pub async fn localize(
        &self,
        user: &str,
        application_id: ApplicationId,
        work_dir: &Path,
        resources: &BTreeMap<String, LocalResource>,
    ) -> Result<Vec<Localized>, LocalizationError> {
        let local_dir = self
            .local_dirs
            .first()
            .map_or(Path::new(""), PathBuf::as_path);
        let plans = resources
            .iter()
            .map(|(link, resource)| {
                ResourcePlan::new(link, resource, local_dir, user, application_id)
                    .map(|plan| (plan, resource.clone()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut localized = Vec::with_capacity(plans.len());
        for (plan, resource) in plans {
            let link = plan.link.clone();
            let path = plan.localized();
            let fresh = {
                let _entry = self.locks.lock(plan.entry_dir.clone()).await;
                let plan = plan.clone();
                tokio::task::spawn_blocking(move || fetch_once(&plan, &resource))
                    .await
                    .map_err(|err| LocalizationError::TaskFailed {
                        link: link.as_str().to_owned(),
                        reason: err.to_string(),
                    })??
            };
            let work_dir = work_dir.to_owned();
            let linked = plan.clone();
            tokio::task::spawn_blocking(move || link_into(&work_dir, &linked))
                .await
                .map_err(|err| LocalizationError::TaskFailed {
                    link: link.as_str().to_owned(),
                    reason: err.to_string(),
                })??;
            tracing::info!(
                link = link.as_str(),
                source = %plan.source.display(),
                path = %path.display(),
                fresh,
                "localized resource"
            );
            localized.push(Localized { link, path, fresh });
        }
        Ok(localized)
    }

    /// Removes the APPLICATION cache of `application_id` for every user in every local
    /// directory, as Hadoop's NodeManager does once the application has finished on the node,
    /// and returns the directories removed. A directory that cannot be removed is logged and
    /// left.
    pub async fn remove_application_cache(&self, application_id: ApplicationId) -> Vec<PathBuf> {
        if self.local_dirs.is_empty() {
            // A node with no local directory (the simulation's) has nothing to remove, and
            // must not leave its thread for a blocking one to find that out.
            return Vec::new();
        }
        let local_dirs = self.local_dirs.clone();
        let removed = tokio::task::spawn_blocking(move || {
            local_dirs
                .iter()
                .flat_map(|local_dir| application_caches(local_dir, application_id))
                .filter(|cache| match fs::remove_dir_all(cache) {
                    Ok(()) => true,
                    Err(err) if err.kind() == io::ErrorKind::NotFound => false,
                    Err(err) => {
                        tracing::warn!(%application_id, cache = %cache.display(), %err, "cannot remove an application's cache");
                        false
                    }
                })
                .collect()
        })
        .await;
        removed.unwrap_or_else(|err| {
            tracing::error!(%application_id, %err, "the application cache removal failed");
            Vec::new()
        })
    }
}

/// The APPLICATION caches `application_id` may have in `local_dir`, one per user directory.
fn application_caches(local_dir: &Path, application_id: ApplicationId) -> Vec<PathBuf> {
    let Ok(users) = fs::read_dir(local_dir.join("usercache")) else {
        return Vec::new();
    };
    users
        .filter_map(Result::ok)
        .filter_map(|user| user.file_name().into_string().ok())
        .map(|user| CacheScope::application_cache(local_dir, &user, application_id))
        .collect()
}

/// Links `plan`'s copy into `work_dir` under its link name, creating the directories of a
/// nested name as Hadoop's launch script does.
///
/// # Errors
///
/// [`LocalizationError::InvalidLinkName`] when the link's directory resolves outside the
/// working directory (it lies below another resource's link, which would write into that
/// resource's cache), and [`LocalizationError::Write`] for a failed write or a name already
/// taken by something other than a link.
fn link_into(work_dir: &Path, plan: &ResourcePlan) -> Result<(), LocalizationError> {
    let link = plan.link.as_str();
    let path = work_dir.join(plan.link.path());
    let parent = path.parent().unwrap_or(work_dir);
    fs::create_dir_all(parent).map_err(|err| LocalizationError::write(link, parent, err))?;
    let real = |dir: &Path| {
        dir.canonicalize()
            .map_err(|err| LocalizationError::write(link, dir, err))
    };
    if !real(parent)?.starts_with(real(work_dir)?) {
        return Err(LocalizationError::InvalidLinkName {
            link: link.to_owned(),
            reason: "it lies below another resource's link",
        });
    }
    match fs::symlink_metadata(&path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            fs::remove_file(&path).map_err(|err| LocalizationError::write(link, &path, err))?;
        }
        Ok(_) => {
            return Err(LocalizationError::write(
                link,
                &path,
                io::Error::from(io::ErrorKind::AlreadyExists),
            ));
        }
        Err(_) => {}
    }
    std::os::unix::fs::symlink(plan.localized(), &path)
        .map_err(|err| LocalizationError::write(link, &path, err))
}

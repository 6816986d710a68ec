//! Localization: the files a launch context lists as local resources, made available in the
//! container's working directory before it starts, after Hadoop's
//! `ResourceLocalizationService` and `FSDownload`.
//!
//! ```text
//!  LocalResourceProto ──> LocalResource ──> ResourcePlan (pure: LinkName, file: URL path,
//!  (launch context,       (kept in the       CacheScope by visibility, CacheKey dir name)
//!   by link name)          container record)       │
//!                                                  v
//!                          Localizer::localize: KeyLocks (one copy per entry at a time)
//!                            └─ spawn_blocking: fetch_once
//!                                 entry exists? reuse : stat, SourceStat::check (time, size),
//!                                 PUBLIC readable by all?, Unpacking::choose, copy or unpack
//!                                 into <entry>_tmp, seal (modes, links inside), rename
//!                            └─ spawn_blocking: <work dir>/<link> ──symlink──> copy
//! ```
//!
//! Only `file:` URLs are read; other schemes fail the container with a reason naming the
//! resource and scheme. The pure parts (link names, URLs, cache keys and places, the choice
//! of unpacking, the source checks) are apart from the filesystem walks, each in its own
//! file.

mod archive_unpack;
mod cache_key;
mod cache_scope;
mod entry_path;
mod fetch;
mod key_locks;
mod link_name;
mod local_resource;
mod local_tree;
mod localization_error;
#[allow(clippy::module_inception)]
mod localizer;
mod resource_plan;
mod resource_type;
mod resource_visibility;
mod source_stat;
mod source_url;
mod unpacking;

use cache_key::CacheKey;
use cache_scope::CacheScope;
use key_locks::KeyLocks;
use resource_plan::ResourcePlan;
use source_stat::SourceStat;

pub use link_name::LinkName;
pub use local_resource::LocalResource;
pub use localization_error::LocalizationError;
pub use localizer::{Localized, Localizer};
pub use resource_type::ResourceType;
pub use resource_visibility::ResourceVisibility;

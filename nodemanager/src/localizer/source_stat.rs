//! [`SourceStat`]: what localization checks of a source against what the client saw.

use std::fs::Metadata;
use std::path::Path;
use std::time::UNIX_EPOCH;

use super::{LocalResource, LocalizationError};

/// What the NodeManager found of a source file when it came to localize it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SourceStat {
    /// Whether it is a directory.
    pub(crate) is_dir: bool,
    /// Its length in bytes.
    pub(crate) len: u64,
    /// Its modification time in milliseconds since the Unix epoch, truncated as Java's
    /// `File.lastModified` truncates it.
    pub(crate) modified_ms: i64,
}

impl SourceStat {
    /// The stat of a file from its metadata (following symbolic links, as Hadoop's local
    /// filesystem does). A time the platform cannot give is taken as 0, which no client sends.
    pub(crate) fn of(metadata: &Metadata) -> Self {
        let modified_ms = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
            .and_then(|elapsed| i64::try_from(elapsed.as_millis()).ok())
            .unwrap_or(0);
        Self {
            is_dir: metadata.is_dir(),
            len: metadata.len(),
            modified_ms,
        }
    }

    /// Checks the source at `path` against the `resource` the client described, as Hadoop's
    /// `FSDownload` does: the modification time must be the one the client gave.
    ///
    /// Hadoop does not compare sizes; this NodeManager also compares a regular file's length
    /// with a positive size, which catches a file rewritten within the same millisecond. A
    /// size of 0 or less is taken as "not given" (clients that do not know it send 0 or -1),
    /// and a directory's length means nothing across filesystems.
    ///
    /// # Errors
    ///
    /// [`LocalizationError::ChangedOnSource`] and [`LocalizationError::SizeMismatch`], naming
    /// the expected and found values.
    pub(crate) fn check(
        &self,
        link: &str,
        path: &Path,
        resource: &LocalResource,
    ) -> Result<(), LocalizationError> {
        if self.modified_ms != resource.timestamp_ms {
            return Err(LocalizationError::ChangedOnSource {
                link: link.to_owned(),
                path: path.to_owned(),
                expected_ms: resource.timestamp_ms,
                found_ms: self.modified_ms,
            });
        }
        if !self.is_dir && resource.size > 0 && u64::try_from(resource.size).ok() != Some(self.len)
        {
            return Err(LocalizationError::SizeMismatch {
                link: link.to_owned(),
                path: path.to_owned(),
                expected: resource.size,
                found: self.len,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localizer::{ResourceType, ResourceVisibility};

    fn resource(size: i64, timestamp_ms: i64) -> LocalResource {
        LocalResource {
            url: "file:/s/a.jar".to_owned(),
            size,
            timestamp_ms,
            resource_type: ResourceType::File,
            visibility: ResourceVisibility::Application,
            pattern: String::new(),
        }
    }

    fn file(len: u64, modified_ms: i64) -> SourceStat {
        SourceStat {
            is_dir: false,
            len,
            modified_ms,
        }
    }

    #[test]
    fn an_unchanged_source_passes() {
        let path = Path::new("/s/a.jar");
        assert_eq!(file(10, 7).check("a", path, &resource(10, 7)), Ok(()));
        assert_eq!(file(10, 7).check("a", path, &resource(0, 7)), Ok(()));
        assert_eq!(file(10, 7).check("a", path, &resource(-1, 7)), Ok(()));
        let dir = SourceStat {
            is_dir: true,
            len: 4096,
            modified_ms: 7,
        };
        assert_eq!(dir.check("a", path, &resource(1, 7)), Ok(()));
    }

    #[test]
    fn another_time_or_size_is_refused_with_both_values() {
        let path = Path::new("/s/a.jar");
        let changed = file(10, 8).check("a", path, &resource(10, 7)).unwrap_err();
        assert_eq!(
            changed,
            LocalizationError::ChangedOnSource {
                link: "a".to_owned(),
                path: path.to_owned(),
                expected_ms: 7,
                found_ms: 8,
            }
        );
        assert_eq!(
            changed.to_string(),
            "local resource \"a\": Resource /s/a.jar changed on src filesystem - expected: 7 ms, \
             was: 8 ms"
        );
        assert_eq!(
            file(11, 7).check("a", path, &resource(10, 7)),
            Err(LocalizationError::SizeMismatch {
                link: "a".to_owned(),
                path: path.to_owned(),
                expected: 10,
                found: 11,
            })
        );
    }
}

//! [`Unpacking`]: what localization does with a source, chosen as Hadoop's `FSDownload`
//! chooses it.

use regex::Regex;

use super::{LocalizationError, ResourceType};

/// The archive formats this NodeManager unpacks, known by the source's file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArchiveFormat {
    /// `.zip` and `.jar`.
    Zip,
    /// `.tar`.
    Tar,
    /// `.tar.gz` and `.tgz`.
    TarGz,
}

impl ArchiveFormat {
    /// The format a file name's extension says, compared without regard to case.
    pub(crate) fn of(file_name: &str) -> Option<Self> {
        let name = file_name.to_ascii_lowercase();
        if name.ends_with(".jar") || name.ends_with(".zip") {
            Some(Self::Zip)
        } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
            Some(Self::TarGz)
        } else if name.ends_with(".tar") {
            Some(Self::Tar)
        } else {
            None
        }
    }
}

/// How a source becomes the localized copy.
#[derive(Debug, Clone)]
pub(crate) enum Unpacking {
    /// Copied as it is: a FILE, or any directory.
    Copy,
    /// Unpacked whole into a directory of the source's name.
    Unpack(ArchiveFormat),
    /// A jar whose entries with a name matching the whole regular expression are unpacked
    /// into a directory of the jar's name, which also receives a copy of the jar itself.
    UnpackMatching(Regex),
}

impl Unpacking {
    /// What localization does with the source `file_name` (a directory when `is_dir`) of a
    /// resource of `resource_type` with `pattern`, as Hadoop's `FSDownload` decides:
    /// - a directory is copied whatever the type;
    /// - FILE is copied;
    /// - ARCHIVE is unpacked by its extension;
    /// - PATTERN unpacks the entries of a `.jar` that match the pattern (empty matches every
    ///   entry: the protocol cannot tell an unset pattern from an empty one) and keeps the jar;
    ///   a `.zip` or tar archive is unpacked whole, as Hadoop does with a warning.
    ///
    /// Where Hadoop copies an ARCHIVE or PATTERN file of any other name as it is, this
    /// NodeManager refuses it: the application asked for an unpacked directory and would get
    /// a file.
    ///
    /// # Errors
    ///
    /// [`LocalizationError::UnsupportedArchive`] for an archive name without a known
    /// extension, and [`LocalizationError::InvalidPattern`] for a pattern that is not a
    /// regular expression.
    pub(crate) fn choose(
        link: &str,
        resource_type: ResourceType,
        file_name: &str,
        pattern: &str,
        is_dir: bool,
    ) -> Result<Self, LocalizationError> {
        if is_dir || resource_type == ResourceType::File {
            return Ok(Self::Copy);
        }
        let format =
            ArchiveFormat::of(file_name).ok_or_else(|| LocalizationError::UnsupportedArchive {
                link: link.to_owned(),
                file_name: file_name.to_owned(),
                resource_type: resource_type.name(),
            })?;
        let is_jar = file_name.to_ascii_lowercase().ends_with(".jar");
        if resource_type == ResourceType::Pattern && is_jar {
            // Java's Matcher.matches(): the whole name must match.
            let anchored = if pattern.is_empty() {
                "(?s:.*)".to_owned()
            } else {
                format!("^(?:{pattern})$")
            };
            let regex = Regex::new(&anchored).map_err(|err| LocalizationError::InvalidPattern {
                link: link.to_owned(),
                pattern: pattern.to_owned(),
                reason: err.to_string(),
            })?;
            return Ok(Self::UnpackMatching(regex));
        }
        Ok(Self::Unpack(format))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(
        resource_type: ResourceType,
        name: &str,
        pattern: &str,
    ) -> Result<Unpacking, LocalizationError> {
        Unpacking::choose("r", resource_type, name, pattern, false)
    }

    #[test]
    fn formats_come_from_the_extension_whatever_its_case() {
        assert_eq!(
            ArchiveFormat::of("__spark_conf__.zip"),
            Some(ArchiveFormat::Zip)
        );
        assert_eq!(ArchiveFormat::of("APP.JAR"), Some(ArchiveFormat::Zip));
        assert_eq!(ArchiveFormat::of("a.tar"), Some(ArchiveFormat::Tar));
        assert_eq!(ArchiveFormat::of("a.Tar.Gz"), Some(ArchiveFormat::TarGz));
        assert_eq!(ArchiveFormat::of("a.tgz"), Some(ArchiveFormat::TarGz));
        assert_eq!(ArchiveFormat::of("a.gz"), None);
        assert_eq!(ArchiveFormat::of("a.tar.bz2"), None);
    }

    #[test]
    fn files_and_directories_are_copied_and_archives_unpacked() {
        assert!(matches!(
            choose(ResourceType::File, "a.zip", ""),
            Ok(Unpacking::Copy)
        ));
        assert!(matches!(
            Unpacking::choose("r", ResourceType::Archive, "conf", "", true),
            Ok(Unpacking::Copy)
        ));
        assert!(matches!(
            choose(ResourceType::Archive, "a.jar", ""),
            Ok(Unpacking::Unpack(ArchiveFormat::Zip))
        ));
        assert!(matches!(
            choose(ResourceType::Archive, "a.tgz", ""),
            Ok(Unpacking::Unpack(ArchiveFormat::TarGz))
        ));
    }

    #[test]
    fn a_pattern_filters_a_jar_but_other_archives_are_unpacked_whole() {
        let Ok(Unpacking::UnpackMatching(regex)) =
            choose(ResourceType::Pattern, "a.jar", "lib/.*\\.jar")
        else {
            panic!("a PATTERN jar is filtered");
        };
        assert!(regex.is_match("lib/x.jar"));
        assert!(
            !regex.is_match("other/lib/x.jar"),
            "the whole name must match"
        );
        assert!(!regex.is_match("lib/x.jarx"));
        let Ok(Unpacking::UnpackMatching(any)) = choose(ResourceType::Pattern, "a.jar", "") else {
            panic!("an empty pattern matches every entry");
        };
        assert!(any.is_match("META-INF/MANIFEST.MF"));
        assert!(matches!(
            choose(ResourceType::Pattern, "a.zip", "lib/.*"),
            Ok(Unpacking::Unpack(ArchiveFormat::Zip))
        ));
        assert!(matches!(
            choose(ResourceType::Pattern, "a.jar", "("),
            Err(LocalizationError::InvalidPattern { .. })
        ));
    }

    #[test]
    fn archives_of_unknown_names_are_refused_by_name() {
        assert_eq!(
            choose(ResourceType::Archive, "conf.rar", "").unwrap_err(),
            LocalizationError::UnsupportedArchive {
                link: "r".to_owned(),
                file_name: "conf.rar".to_owned(),
                resource_type: "ARCHIVE",
            }
        );
        assert!(matches!(
            choose(ResourceType::Pattern, "a.txt", ".*"),
            Err(LocalizationError::UnsupportedArchive {
                resource_type: "PATTERN",
                ..
            })
        ));
    }
}

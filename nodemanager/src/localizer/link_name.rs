//! [`LinkName`]: the name a container finds a localized resource under.

use std::path::{Path, PathBuf};

use super::LocalizationError;
use super::entry_path::contained_path;

/// A launch context's local-resource key, checked to name a path inside the container's
/// working directory.
///
/// Hadoop accepts link names with subdirectories (`lib/a.jar`; its launch script creates the
/// parent directories) and so does this NodeManager. It refuses what Hadoop would let climb
/// out of the working directory: empty, absolute and NUL-holding names and `..` components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkName {
    name: String,
    path: PathBuf,
}

impl LinkName {
    /// Checks `name`.
    ///
    /// # Errors
    ///
    /// [`LocalizationError::InvalidLinkName`] saying what is wrong.
    pub fn parse(name: &str) -> Result<Self, LocalizationError> {
        let refuse = |reason| LocalizationError::InvalidLinkName {
            link: name.to_owned(),
            reason,
        };
        if name.is_empty() {
            return Err(refuse("it is empty"));
        }
        if name.starts_with('/') {
            return Err(refuse("it is an absolute path"));
        }
        if name.contains('\0') {
            return Err(refuse("it holds NUL"));
        }
        let path = contained_path(Path::new(name))
            .ok_or_else(|| refuse("it has a '..' component or names the working directory"))?;
        Ok(Self {
            name: name.to_owned(),
            path,
        })
    }

    /// The name as the launch context gave it.
    pub fn as_str(&self) -> &str {
        &self.name
    }

    /// The path below the working directory, with `.` components dropped.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_and_subdirectories_are_accepted() {
        assert_eq!(
            LinkName::parse("__app__.jar").unwrap().path(),
            Path::new("__app__.jar")
        );
        let nested = LinkName::parse("lib/./dep.jar").unwrap();
        assert_eq!(nested.path(), Path::new("lib/dep.jar"));
        assert_eq!(nested.as_str(), "lib/./dep.jar");
    }

    #[test]
    fn names_that_could_leave_the_working_directory_are_refused_with_the_reason() {
        for (name, reason) in [
            ("", "it is empty"),
            ("/etc/passwd", "it is an absolute path"),
            ("a\0b", "it holds NUL"),
            (
                "..",
                "it has a '..' component or names the working directory",
            ),
            (
                "lib/../../x",
                "it has a '..' component or names the working directory",
            ),
            (
                ".",
                "it has a '..' component or names the working directory",
            ),
        ] {
            assert_eq!(
                LinkName::parse(name),
                Err(LocalizationError::InvalidLinkName {
                    link: name.to_owned(),
                    reason
                }),
                "{name:?}"
            );
        }
    }
}

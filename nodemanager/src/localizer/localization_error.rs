//! [`LocalizationError`]: why a resource could not be made available to a container.

use std::io;
use std::path::{Path, PathBuf};

use crate::executor::IoCause;

/// Why one of a container's resources could not be localized. Every variant names the
/// resource by its link name (the launch context's map key), and by its URL or path, so that
/// the container's diagnostics tell the application what to fix.
///
/// `Clone` and `Eq` like the crate's [`Error`](crate::Error), which carries it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalizationError {
    /// The link name would not name a file inside the container's working directory.
    #[error(
        "local resource {link:?}: invalid link name: {reason} (expected a relative path of plain \
         names, without '.' or '..')"
    )]
    InvalidLinkName {
        /// The link name.
        link: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The URL's scheme is not `file`, the only one this NodeManager reads.
    #[error(
        "local resource {link:?}: {url}: scheme {scheme:?} is not supported; this NodeManager \
         localizes only file: URLs"
    )]
    UnsupportedScheme {
        /// The link name.
        link: String,
        /// The resource's URL.
        url: String,
        /// Its scheme (empty when it has none).
        scheme: String,
    },
    /// The URL is a `file:` URL that names no local file.
    #[error("local resource {link:?}: {url}: {reason}")]
    InvalidUrl {
        /// The link name.
        link: String,
        /// The resource's URL.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The source does not exist.
    #[error("local resource {link:?}: {} does not exist", path.display())]
    SourceMissing {
        /// The link name.
        link: String,
        /// The source file.
        path: PathBuf,
    },
    /// The source exists but cannot be read (permissions, or another error of the
    /// filesystem).
    #[error("local resource {link:?}: cannot read {}: {source}", path.display())]
    SourceUnreadable {
        /// The link name.
        link: String,
        /// The file or directory that could not be read.
        path: PathBuf,
        /// The operating system's error.
        source: IoCause,
    },
    /// The source's modification time differs from the one the client gave: it changed since
    /// the container was submitted. The text is Hadoop's.
    #[error(
        "local resource {link:?}: Resource {} changed on src filesystem - expected: \
         {expected_ms} ms, was: {found_ms} ms",
        path.display()
    )]
    ChangedOnSource {
        /// The link name.
        link: String,
        /// The source file.
        path: PathBuf,
        /// The modification time the launch context gave.
        expected_ms: i64,
        /// The source's modification time now.
        found_ms: i64,
    },
    /// The source's length differs from the size the client gave.
    #[error(
        "local resource {link:?}: Resource {} changed on src filesystem - expected size: \
         {expected} bytes, was: {found} bytes",
        path.display()
    )]
    SizeMismatch {
        /// The link name.
        link: String,
        /// The source file.
        path: PathBuf,
        /// The size the launch context gave.
        expected: i64,
        /// The source's length now.
        found: u64,
    },
    /// A PUBLIC resource that not everyone could read. The text is Hadoop's.
    #[error(
        "local resource {link:?}: Resource {} is not publicly accessible and as such cannot be \
         part of the public cache (it must be readable by others, and every directory above it \
         executable by others)",
        path.display()
    )]
    NotPublic {
        /// The link name.
        link: String,
        /// The source file.
        path: PathBuf,
    },
    /// The resource's type cannot be unpacked from a file of that name.
    #[error(
        "local resource {link:?}: {file_name:?} is not an archive this NodeManager unpacks as \
         {resource_type} (expected a name ending in .jar, .zip, .tar, .tar.gz or .tgz)"
    )]
    UnsupportedArchive {
        /// The link name.
        link: String,
        /// The source's file name.
        file_name: String,
        /// `ARCHIVE` or `PATTERN`.
        resource_type: &'static str,
    },
    /// A PATTERN resource whose pattern is not a regular expression.
    #[error("local resource {link:?}: invalid pattern {pattern:?}: {reason}")]
    InvalidPattern {
        /// The link name.
        link: String,
        /// The pattern.
        pattern: String,
        /// The regular-expression parser's complaint.
        reason: String,
    },
    /// An archive entry that would land outside the directory it is unpacked into (an
    /// absolute name, or one with `..`: "zip slip"), or a symbolic link pointing out of it.
    #[error(
        "local resource {link:?}: archive entry {entry:?} would reach outside the directory it \
         is unpacked into{}",
        target.as_ref().map(|target| format!(" (symbolic link to {target:?})")).unwrap_or_default()
    )]
    EntryOutside {
        /// The link name.
        link: String,
        /// The entry's name in the archive.
        entry: String,
        /// The target, when the entry is a symbolic or hard link.
        target: Option<String>,
    },
    /// An archive entry of a kind that is not unpacked (a device, a FIFO), or a symbolic link
    /// inside a directory source.
    #[error("local resource {link:?}: {entry:?} is a {kind}, which is not localized")]
    UnsupportedEntry {
        /// The link name.
        link: String,
        /// The entry's name in the archive, or the path in the source directory.
        entry: String,
        /// What it is.
        kind: &'static str,
    },
    /// The archive cannot be read as the format its name says.
    #[error("local resource {link:?}: cannot unpack {}: {reason}", path.display())]
    CorruptArchive {
        /// The link name.
        link: String,
        /// The source file.
        path: PathBuf,
        /// The archive reader's complaint.
        reason: String,
    },
    /// Writing the localized copy or the container's link failed.
    #[error("local resource {link:?}: cannot write {}: {source}", path.display())]
    Write {
        /// The link name.
        link: String,
        /// The file, directory or link being written.
        path: PathBuf,
        /// The operating system's error.
        source: IoCause,
    },
    /// The blocking task that copied or unpacked the resource panicked or was cancelled.
    #[error("local resource {link:?}: the localization task failed: {reason}")]
    TaskFailed {
        /// The link name.
        link: String,
        /// What the runtime reported.
        reason: String,
    },
}

impl LocalizationError {
    /// A source (or a file inside a source directory) that could not be read.
    pub(crate) fn unreadable(link: &str, path: &Path, source: io::Error) -> Self {
        if source.kind() == io::ErrorKind::NotFound {
            return Self::SourceMissing {
                link: link.to_owned(),
                path: path.to_owned(),
            };
        }
        Self::SourceUnreadable {
            link: link.to_owned(),
            path: path.to_owned(),
            source: source.into(),
        }
    }

    /// A copy, unpacked entry or link that could not be written.
    pub(crate) fn write(link: &str, path: &Path, source: io::Error) -> Self {
        Self::Write {
            link: link.to_owned(),
            path: path.to_owned(),
            source: source.into(),
        }
    }
}

//! [`IoCause`]: an I/O error that can sit in the crate's comparable [`Error`](crate::Error).

use std::fmt;
use std::io;
use std::sync::Arc;

/// The operating-system error behind a failed executor step.
///
/// The crate's [`Error`](crate::Error) is `Clone` and `Eq` so that callers and tests can keep
/// and compare errors; `io::Error` is neither, so it is shared behind an `Arc`, and two causes
/// are equal when their kind, OS error number and message are.
#[derive(Debug, Clone)]
pub struct IoCause(Arc<io::Error>);

impl IoCause {
    /// The kind of the underlying error, such as `PermissionDenied`.
    pub fn kind(&self) -> io::ErrorKind {
        self.0.kind()
    }
}

impl From<io::Error> for IoCause {
    fn from(error: io::Error) -> Self {
        Self(Arc::new(error))
    }
}

impl PartialEq for IoCause {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind()
            && self.0.raw_os_error() == other.0.raw_os_error()
            && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for IoCause {}

impl fmt::Display for IoCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for IoCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

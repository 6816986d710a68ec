//! [`StorageCause`]: a storage engine or codec error that can sit in the crate's comparable
//! [`Error`](crate::Error).

use std::fmt;
use std::sync::Arc;

/// Why the state store's engine (sled) or codec (postcard) failed.
///
/// The crate's [`Error`](crate::Error) is `Clone` and `Eq`, and its public face should not
/// change if the state store moves to another engine, so the underlying error is kept behind an
/// `Arc` of a trait object. Two causes are equal when their messages are.
#[derive(Debug, Clone)]
pub struct StorageCause(Arc<dyn std::error::Error + Send + Sync + 'static>);

impl From<sled::Error> for StorageCause {
    fn from(error: sled::Error) -> Self {
        Self(Arc::new(error))
    }
}

impl From<postcard::Error> for StorageCause {
    fn from(error: postcard::Error) -> Self {
        Self(Arc::new(error))
    }
}

impl PartialEq for StorageCause {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for StorageCause {}

impl fmt::Display for StorageCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for StorageCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

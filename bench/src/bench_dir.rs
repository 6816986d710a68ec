//! [`BenchDir`]: where a benchmark lays out its clusters, and what happens to it afterwards.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tempfile::TempDir;

use crate::interrupts::Interrupted;

/// The directory a benchmark's clusters live in: the one the user named (kept), or a fresh
/// one under the system's temporary directory, removed at the end unless the benchmark failed
/// (other than by a signal), in which case it is kept for the daemons' logs and named in the
/// error.
#[derive(Debug)]
pub(crate) struct BenchDir {
    path: PathBuf,
    temporary: Option<TempDir>,
}

impl BenchDir {
    /// `dir` when given, else a new temporary directory whose name starts with `prefix`.
    ///
    /// # Errors
    ///
    /// When the temporary directory cannot be created; the message names its parent.
    pub(crate) fn new(dir: Option<&Path>, prefix: &str) -> anyhow::Result<Self> {
        match dir {
            Some(dir) => Ok(BenchDir {
                path: dir.to_owned(),
                temporary: None,
            }),
            None => {
                let temporary = tempfile::Builder::new()
                    .prefix(prefix)
                    .tempdir_in(std::env::temp_dir())
                    .with_context(|| {
                        format!(
                            "creating a cluster directory under {}",
                            std::env::temp_dir().display()
                        )
                    })?;
                Ok(BenchDir {
                    path: temporary.path().to_owned(),
                    temporary: Some(temporary),
                })
            }
        }
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Ends the directory's life with the benchmark's `outcome`: a temporary directory is
    /// removed, except after a failure that was not an [`Interrupted`], when it is kept and
    /// the error says where the daemons' logs are.
    pub(crate) fn finish<T>(self, outcome: anyhow::Result<T>) -> anyhow::Result<T> {
        match (outcome, self.temporary) {
            (Err(err), Some(temporary)) if !err.is::<Interrupted>() => {
                let kept = temporary.keep();
                Err(err.context(format!(
                    "the benchmark failed; its cluster directory {} is kept for the daemons' \
                     logs (logs/ and each NodeManager's container-logs/ below it)",
                    kept.display()
                )))
            }
            (outcome, _) => outcome,
        }
    }
}

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
    fn new(dir: Option<&Path>, prefix: &str) -> anyhow::Result<Self> {
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

    /// Runs `bench` in the directory (`dir`, or a temporary one named with `prefix`) on a
    /// runtime of its own, then [`finish`](Self::finish)es the directory with its outcome.
    /// The runtime, and with it every daemon `bench` started, goes before the directory, also
    /// when `bench` panics.
    ///
    /// # Errors
    ///
    /// Those of [`new`](Self::new), a runtime that cannot be built, and `bench`'s.
    pub(crate) fn run<T, F, Fut>(dir: Option<&Path>, prefix: &str, bench: F) -> anyhow::Result<T>
    where
        F: FnOnce(PathBuf) -> Fut,
        Fut: std::future::Future<Output = anyhow::Result<T>>,
    {
        let dir = Self::new(dir, prefix)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("creating the benchmark's runtime")?;
        let outcome = runtime.block_on(bench(dir.path.clone()));
        drop(runtime);
        dir.finish(outcome)
    }

    /// Ends the directory's life with the benchmark's `outcome`: a temporary directory is
    /// removed, except after a failure that was not an [`Interrupted`], when it is kept and
    /// the error says where the daemons' logs are.
    fn finish<T>(self, outcome: anyhow::Result<T>) -> anyhow::Result<T> {
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

//! [`open_rewriting_if_grown`]: how both daemons open their stores, rewriting one whose files
//! outgrew its data first.

use std::path::Path;
use std::time::Duration;

use crate::{DurableDb, GrowthLimit, LOCK_WAIT, compact_if_grown, is_intact};

/// Opens (creating if absent) the store in `dir` with the configuration `config` makes, first
/// rewriting it when its files outgrew `limit` ([`compact_if_grown`]), and logs a rewrite or
/// its failure naming the store as `what` ("the Raft storage"). While another instance of this
/// process still holds the store's lock, waits up to `wait` for it, and up to [`LOCK_WAIT`]
/// after a rewrite attempt (the rewrite's own sled threads let go shortly after).
///
/// Guarantees: a store whose rewrite left it anything but intact ([`is_intact`]) is never
/// opened, since sled would start an empty one; one whose rewrite failed with the original
/// back in place is opened as it was, and the next start tries again.
///
/// # Errors
///
/// The rewrite's error when it left the store not intact; otherwise sled's error opening it
/// (a lock another holder keeps past the wait included).
pub fn open_rewriting_if_grown(
    dir: &Path,
    config: impl Fn() -> sled::Config,
    limit: GrowthLimit,
    wait: Duration,
    what: &str,
) -> sled::Result<DurableDb> {
    let wait = match compact_if_grown(dir, &config, limit) {
        Ok(None) => wait,
        Ok(Some(done)) => {
            tracing::info!(
                path = %dir.display(),
                live_bytes = done.live_bytes,
                files_before = done.files_before,
                files_after = done.files_after,
                "rewrote {what}, whose files had grown past {} times its data",
                limit.ratio
            );
            wait.max(LOCK_WAIT)
        }
        Err(err) if is_intact(dir) => {
            tracing::warn!(
                path = %dir.display(),
                %err,
                "could not rewrite {what}, grown past {} times its data; opening it as it is",
                limit.ratio
            );
            wait.max(LOCK_WAIT)
        }
        Err(err) => return Err(err),
    };
    DurableDb::open_waiting(dir, config, wait)
}

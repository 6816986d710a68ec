//! [`open_rewriting_if_grown`]: how both daemons open their stores, rewriting one whose files
//! outgrew its data first.

use std::path::Path;
use std::time::Duration;

use crate::{
    DurableDb, GrowthCheck, GrowthLimit, LOCK_WAIT, compact_if_grown, is_intact, is_lock_held,
};

/// Opens (creating if absent) the store in `dir` with the configuration `config` makes, first
/// rewriting it when its files outgrew `limit` ([`compact_if_grown`]), and logs a rewrite or
/// its failure naming the store as `what` ("the Raft storage"). While another instance of this
/// process still holds the store's lock, waits up to `wait` for it; up to [`LOCK_WAIT`] when the
/// store was opened to be measured or rewritten first, since sled's threads let go of the lock
/// only shortly after.
///
/// Guarantees: a store whose rewrite left it anything but intact ([`is_intact`]) is never
/// opened, since sled would start an empty one; one whose rewrite failed with the original
/// back in place is opened as it was, and the next start tries again. A store another holder
/// keeps locked is refused with sled's lock error ([`is_lock_held`]), not rewritten.
///
/// # Errors
///
/// The lock error; the rewrite's error when it left the store not intact; otherwise sled's
/// error opening it.
pub fn open_rewriting_if_grown(
    dir: &Path,
    config: impl Fn() -> sled::Config,
    limit: GrowthLimit,
    wait: Duration,
    what: &str,
) -> sled::Result<DurableDb> {
    let opened_first = match compact_if_grown(dir, &config, limit) {
        Ok(GrowthCheck::Skipped) => false,
        Ok(GrowthCheck::WithinLimit) => true,
        Ok(GrowthCheck::Rewritten(done)) => {
            tracing::info!(
                path = %dir.display(),
                live_bytes = done.live_bytes,
                files_before = done.files_before,
                files_after = done.files_after,
                "rewrote {what}, whose files had grown past {} times its data",
                limit.ratio
            );
            true
        }
        Err(err) if is_lock_held(&err) => return Err(err),
        Err(err) if is_intact(dir) => {
            tracing::warn!(
                path = %dir.display(),
                %err,
                "could not check or rewrite the size of {what}; opening it as it is"
            );
            true
        }
        Err(err) => return Err(err),
    };
    let wait = if opened_first {
        wait.max(LOCK_WAIT)
    } else {
        wait
    };
    DurableDb::open_waiting(dir, config, wait)
}

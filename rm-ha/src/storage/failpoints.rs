//! [`Failpoints`]: faults a test build injects into the replica on purpose.
//!
//! The chaos harness uses them to break the disk under a running replica and to prove that its
//! invariant checkers catch a planted bug. They exist only in builds with the `failpoints`
//! cargo feature, which the workspace enables for test builds alone (the root package's
//! dev-dependencies): a release binary has none of this code, and ignores the variable.

#[cfg(feature = "failpoints")]
use std::time::Duration;

use crate::error::Error;

/// The environment variable a replica reads its failpoints from, once, at start.
pub const FAILPOINTS_VARIABLE: &str = "YARN_HA_FAILPOINTS";

/// Failpoints in force in this replica, read once at start from [`FAILPOINTS_VARIABLE`]: a
/// comma-separated list of
///
/// - `storage.stall=<duration>` (`800ms`, `2s`): every Raft log append and vote write waits
///   that long before it is written and flushed, as on a stalled disk;
/// - `storage.full`: every Raft log append and vote write fails with sled's I/O error for a
///   full disk (`StorageFull`, ENOSPC), so nothing is written or acknowledged and openraft
///   stops the node;
/// - `plant.reissue-container-id`: a deliberately planted bug for the harness to catch. A new
///   leader renumbers the containers it allocates as if its container sequence had restarted
///   under the previous leader's epoch, so ids already issued are issued again, and applying an
///   allocation skips the state machine's id re-validation that would otherwise refuse them.
///   Every replica must have it for the planted entries to be applied alike.
/// - `plant.unflushed-appends`: a deliberately planted bug for the harness to catch. Raft log
///   appends are acknowledged to openraft once sled holds them in memory, without waiting for
///   a flush, sled's background flush is off and its write buffer is 16 MB, so appends reach
///   the disk only with the next vote, truncation, purge or snapshot. A crash of every replica
///   at once loses entries a majority acknowledged.
/// - `plant.unsynced-appends`: a deliberately planted bug for the harness to catch. Raft log
///   appends and votes are acknowledged after sled's own flush, without the fdatasync that
///   follows it, and sled's background fsync is off: what was acknowledged survives a crash of
///   the process (the kernel holds it) but not a power loss. Caught by the chaos harness's
///   `power-loss` faults on volatile disks, never by SIGKILL.
///
/// Without the `failpoints` feature the type is empty, every hook does nothing, and a set
/// variable is reported once as ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Failpoints {
    #[cfg(feature = "failpoints")]
    stall: Option<Duration>,
    #[cfg(feature = "failpoints")]
    full: bool,
    #[cfg(feature = "failpoints")]
    reissue_container_id: bool,
    #[cfg(feature = "failpoints")]
    unflushed_appends: bool,
    #[cfg(feature = "failpoints")]
    unsynced_appends: bool,
}

impl Failpoints {
    /// Whether this binary was built with the `failpoints` feature.
    pub const COMPILED: bool = cfg!(feature = "failpoints");

    /// Every failpoint with what it does, for `yarn-ha chaos failpoints`.
    pub const CATALOG: [(&'static str, &'static str); 5] = [
        (
            "storage.stall=<duration>",
            "every Raft log append and vote write waits this long first (a stalled disk)",
        ),
        (
            "storage.full",
            "every Raft log append and vote write fails with ENOSPC (a full disk)",
        ),
        (
            "plant.reissue-container-id",
            "planted bug: a new leader issues container ids again, unchecked (every RM needs it)",
        ),
        (
            "plant.unflushed-appends",
            "planted bug: Raft log appends are acknowledged unflushed (every RM needs it)",
        ),
        (
            "plant.unsynced-appends",
            "planted bug: Raft writes are acknowledged after sled's flush, unsynced (every RM \
             needs it; only a power loss shows it)",
        ),
    ];

    /// The failpoints [`FAILPOINTS_VARIABLE`] names in this process's environment; none when it
    /// is unset or empty. Without the `failpoints` feature a set variable is logged as ignored
    /// and none are returned.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidFailpoint`] naming the variable and the entry that is unknown, repeated
    /// or badly valued (feature builds only).
    pub fn from_env() -> Result<Self, Error> {
        let Some(value) = std::env::var_os(FAILPOINTS_VARIABLE) else {
            return Ok(Self::default());
        };
        let value = value.to_string_lossy();
        #[cfg(feature = "failpoints")]
        {
            let failpoints = Self::parse(&value)?;
            if failpoints != Self::default() {
                tracing::warn!(?failpoints, "{FAILPOINTS_VARIABLE} arms failpoints");
            }
            Ok(failpoints)
        }
        #[cfg(not(feature = "failpoints"))]
        {
            if !value.trim().is_empty() {
                tracing::warn!(
                    "{FAILPOINTS_VARIABLE}={value:?} is ignored: this binary was built without \
                     the failpoints feature"
                );
            }
            Ok(Self::default())
        }
    }

    /// Parses a [`FAILPOINTS_VARIABLE`] value; blank entries are skipped.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidFailpoint`] naming the first entry that is unknown, given twice, lacks
    /// the duration `storage.stall` needs, or gives a value to a failpoint that takes none.
    #[cfg(feature = "failpoints")]
    pub fn parse(text: &str) -> Result<Self, Error> {
        let mut failpoints = Self::default();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let invalid = |problem| Error::InvalidFailpoint {
                variable: FAILPOINTS_VARIABLE,
                entry: entry.to_owned(),
                problem,
            };
            let (name, value) = match entry.split_once('=') {
                Some((name, value)) => (name.trim(), Some(value.trim())),
                None => (entry, None),
            };
            let repeated = match (name, value) {
                ("storage.stall", Some(value)) => failpoints
                    .stall
                    .replace(parse_duration(value).ok_or_else(|| {
                        invalid("storage.stall needs a whole number of ms or s, e.g. 800ms or 2s")
                    })?)
                    .is_some(),
                ("storage.stall", None) => {
                    return Err(invalid(
                        "storage.stall needs a duration, e.g. storage.stall=800ms",
                    ));
                }
                (
                    "storage.full"
                    | "plant.reissue-container-id"
                    | "plant.unflushed-appends"
                    | "plant.unsynced-appends",
                    Some(_),
                ) => {
                    return Err(invalid("this failpoint takes no value"));
                }
                ("storage.full", None) => std::mem::replace(&mut failpoints.full, true),
                ("plant.reissue-container-id", None) => {
                    std::mem::replace(&mut failpoints.reissue_container_id, true)
                }
                ("plant.unflushed-appends", None) => {
                    std::mem::replace(&mut failpoints.unflushed_appends, true)
                }
                ("plant.unsynced-appends", None) => {
                    std::mem::replace(&mut failpoints.unsynced_appends, true)
                }
                _ => {
                    return Err(invalid(
                        "unknown failpoint; expected storage.stall=<duration>, storage.full, \
                         plant.reissue-container-id, plant.unflushed-appends or \
                         plant.unsynced-appends",
                    ));
                }
            };
            if repeated {
                return Err(invalid("this failpoint is given twice"));
            }
            if failpoints.unflushed_appends && failpoints.unsynced_appends {
                // Each sets up sled its own way; armed together one would silently lose.
                return Err(invalid(
                    "plant.unflushed-appends and plant.unsynced-appends are planted one at a time",
                ));
            }
        }
        Ok(failpoints)
    }

    /// Runs before every Raft log append and vote write: waits out `storage.stall`, then fails
    /// as sled does on a full disk under `storage.full`. Does nothing without the feature.
    ///
    /// # Errors
    ///
    /// Under `storage.full`, an I/O error of kind `StorageFull`.
    pub(crate) async fn before_write(&self) -> std::io::Result<()> {
        #[cfg(feature = "failpoints")]
        {
            if let Some(stall) = self.stall {
                tokio::time::sleep(stall).await;
            }
            if self.full {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "no space left on device (failpoint storage.full)",
                ));
            }
        }
        Ok(())
    }

    /// Whether the planted `plant.reissue-container-id` bug is armed.
    #[cfg(feature = "failpoints")]
    pub(crate) fn reissues_container_ids(&self) -> bool {
        self.reissue_container_id
    }

    /// Whether a Raft log append must be flushed before it is acknowledged: always, unless
    /// the planted `plant.unflushed-appends` bug is armed.
    pub(crate) fn flushes_appends(&self) -> bool {
        #[cfg(feature = "failpoints")]
        {
            !self.unflushed_appends
        }
        #[cfg(not(feature = "failpoints"))]
        {
            true
        }
    }

    /// Whether a flush of the Raft storage must reach stable storage (fdatasync) before what it
    /// covers is acknowledged: always, unless the planted `plant.unsynced-appends` bug is armed.
    pub fn syncs_flushes(&self) -> bool {
        #[cfg(feature = "failpoints")]
        {
            !self.unsynced_appends
        }
        #[cfg(not(feature = "failpoints"))]
        {
            true
        }
    }
}

/// A whole number followed by `ms` or `s`.
#[cfg(feature = "failpoints")]
fn parse_duration(text: &str) -> Option<Duration> {
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit())?);
    let value: u64 = number.parse().ok()?;
    match unit {
        "ms" => Some(Duration::from_millis(value)),
        "s" => Some(Duration::from_secs(value)),
        _ => None,
    }
}

#[cfg(all(test, feature = "failpoints"))]
mod tests {
    use super::*;

    #[test]
    fn every_failpoint_parses_alone_and_together() {
        assert_eq!(Failpoints::parse("").unwrap(), Failpoints::default());
        let all = Failpoints::parse(
            " storage.stall=800ms, storage.full,plant.reissue-container-id,\
             plant.unflushed-appends",
        )
        .unwrap();
        let unsynced = Failpoints::parse("plant.unsynced-appends").unwrap();
        assert!(!unsynced.syncs_flushes() && unsynced.flushes_appends());
        assert_eq!(all.stall, Some(Duration::from_millis(800)));
        assert!(all.full && all.reissues_container_ids() && !all.flushes_appends());
        let stall = Failpoints::parse("storage.stall=2s").unwrap();
        assert_eq!(stall.stall, Some(Duration::from_secs(2)));
        assert!(!stall.full && !stall.reissues_container_ids() && stall.flushes_appends());
        assert!(stall.syncs_flushes());
    }

    #[test]
    fn a_bad_entry_is_refused_naming_the_variable_and_the_entry() {
        for (text, entry, problem) in [
            ("storage.stal=1s", "storage.stal=1s", "unknown failpoint"),
            ("storage.stall", "storage.stall", "needs a duration"),
            ("storage.stall=1.5s", "storage.stall=1.5s", "whole number"),
            ("storage.stall=10m", "storage.stall=10m", "whole number"),
            ("storage.full=yes", "storage.full=yes", "takes no value"),
            ("storage.full,storage.full", "storage.full", "given twice"),
            (
                "plant.unflushed-appends,plant.unsynced-appends",
                "plant.unsynced-appends",
                "one at a time",
            ),
        ] {
            let err = Failpoints::parse(text).unwrap_err();
            assert!(
                matches!(
                    &err,
                    Error::InvalidFailpoint { variable: FAILPOINTS_VARIABLE, entry: e, problem: p }
                        if e == entry && p.contains(problem)
                ),
                "{text}: {err}"
            );
            let message = err.to_string();
            assert!(
                message.starts_with("YARN_HA_FAILPOINTS") && message.contains(entry),
                "{message}"
            );
        }
    }

    #[tokio::test]
    async fn a_full_disk_fails_every_write_with_storage_full() {
        let full = Failpoints::parse("storage.full").unwrap();
        match full.before_write().await {
            Err(err) => assert_eq!(err.kind(), std::io::ErrorKind::StorageFull),
            other => panic!("expected a StorageFull I/O error, got {other:?}"),
        }
        assert!(Failpoints::default().before_write().await.is_ok());
    }

    /// On tokio's paused clock: the stall is waited out in virtual time, to the millisecond.
    #[tokio::test(start_paused = true)]
    async fn a_stalled_disk_holds_every_write_for_the_stall() {
        let stalled = Failpoints::parse("storage.stall=60s").unwrap();
        let started = tokio::time::Instant::now();
        let write = stalled.before_write();
        tokio::pin!(write);
        tokio::select! {
            biased;
            _ = &mut write => panic!("the write went through during a 60 s stall"),
            () = tokio::time::sleep(Duration::from_secs(60) - Duration::from_millis(1)) => {}
        }
        assert!(write.await.is_ok(), "a stall alone fails nothing");
        assert_eq!(started.elapsed(), Duration::from_secs(60));
        let no_stall = Failpoints::parse("storage.stall=0ms").unwrap();
        let started = tokio::time::Instant::now();
        assert!(no_stall.before_write().await.is_ok());
        assert_eq!(started.elapsed(), Duration::ZERO);
    }
}

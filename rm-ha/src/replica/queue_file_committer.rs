//! [`QueueFileCommitter`]: the leader's commits of its own `capacity-scheduler.xml`, the first
//! one and, under Hadoop's `QueueConfigurationAutoRefreshPolicy`, each change after it.

use std::path::Path;
use std::time::{Duration, SystemTime};

use tokio_util::sync::CancellationToken;

use super::async_scheduler::PassThreads;
use super::periodic::Periodic;
use super::raft_proposer::RaftProposer;
use crate::scheduling::{QueueConfigSource, QueueFile, QueueRefresh};
use crate::state_machine::{RmCommand, RmResponse, StateView};

/// Commits the leader's `capacity-scheduler.xml`:
/// - when the replicated state has no queue configuration yet (version 0), so that from then
///   on every replica schedules with the same queues; retried every `retry_interval` until
///   this leader or another commits one;
/// - with `auto_refresh`, again whenever the file changed since the last check (its
///   modification time or length differ), checked every interval; the first check of a
///   leadership commits the file as it is, as Hadoop's RM reloads it on becoming active.
///
/// Guarantees:
/// - each commit is planned as `-refreshQueues` plans it, against everything committed (after
///   a read barrier), so an auto-refresh cannot put in force what the command would refuse;
/// - an invalid file is logged with its reason and tried again only once it changes, while the
///   configuration in force keeps running; a commit that failed for want of a quorum or lost to
///   a concurrent change is tried again at the next check;
/// - a file that disappears (as during an editor's save) is not read as the built-in default:
///   nothing is committed until it is back.
pub(crate) struct QueueFileCommitter {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) source: QueueConfigSource,
    pub(crate) retry_interval: Duration,
    /// `yarn.scheduler.capacity.queue.auto.refresh.monitoring-interval` when the monitor runs
    /// the auto-refresh policy.
    pub(crate) auto_refresh: Option<Duration>,
    /// Where the file is read and parsed.
    pub(crate) passes: PassThreads,
}

/// Why the file was not committed.
#[derive(Debug)]
enum CommitError {
    /// The file cannot be read or is not a valid change: tried again once it changes.
    Refused(String),
    /// The proposal did not commit: tried again at the next check.
    NotCommitted(String),
}

impl QueueFileCommitter {
    /// Runs until `token` is cancelled, or once the initial configuration is in when there is
    /// no auto-refresh.
    pub(crate) async fn run(self, token: CancellationToken) {
        self.commit_initial(&token).await;
        if let Some(interval) = self.auto_refresh {
            self.refresh_on_change(interval, &token).await;
        }
    }

    async fn commit_initial(&self, token: &CancellationToken) {
        while self.state.read(|state| state.queue_config_version == 0) {
            match self.commit_once(None).await {
                Ok(_) => continue,
                Err(CommitError::Refused(reason) | CommitError::NotCommitted(reason)) => {
                    tracing::warn!(
                        file = %self.source.describe(),
                        %reason,
                        "could not commit the initial queue configuration; will retry"
                    );
                }
            }
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(self.retry_interval) => {}
            }
        }
    }

    async fn refresh_on_change(&self, interval: Duration, token: &CancellationToken) {
        let Some(path) = self.source.file.clone() else {
            tracing::warn!(
                "QueueConfigurationAutoRefreshPolicy has no capacity-scheduler.xml to watch; \
                 the built-in default queue stays"
            );
            return;
        };
        let mut watch = FileWatch::default();
        // Until this leader's file was first committed or refused.
        let mut first = true;
        let mut ticks = Periodic::new(interval);
        while ticks.tick(token).await {
            let stamp = FileStamp::of(&path);
            let seen = stamp.as_ref().ok().copied();
            match watch.check(seen) {
                Check::Unchanged | Check::Missing { report: false } => continue,
                Check::Missing { report: true } => {
                    let reason = stamp.err().map(|err| err.to_string()).unwrap_or_default();
                    tracing::warn!(
                        file = %path.display(),
                        %reason,
                        "queue auto-refresh cannot read the file; the configuration in force \
                         stays until it is back"
                    );
                    continue;
                }
                Check::Changed => {}
            }
            let outcome = self.commit_once(seen).await;
            let was_first = first;
            first = first && matches!(outcome, Err(CommitError::NotCommitted(_)));
            match outcome {
                // The file of a replica that just began to lead differs from the one in force:
                // worth an operator's look, since an edit on one host alone took effect.
                Ok(Some(version)) if was_first => tracing::warn!(
                    version,
                    file = %path.display(),
                    "queue auto-refresh committed this new leader's file, which differed from \
                     the configuration in force"
                ),
                Ok(Some(version)) => tracing::info!(
                    version,
                    file = %path.display(),
                    "queue auto-refresh committed the changed file"
                ),
                Ok(None) => tracing::debug!(
                    file = %path.display(),
                    "queue auto-refresh: the file changes nothing in force"
                ),
                Err(CommitError::Refused(reason)) => tracing::error!(
                    file = %path.display(),
                    %reason,
                    "queue auto-refresh refused the changed file; the configuration in force \
                     stays until the file changes again"
                ),
                Err(CommitError::NotCommitted(reason)) => {
                    tracing::warn!(
                        file = %path.display(),
                        %reason,
                        "queue auto-refresh could not commit; will try again"
                    );
                    watch.forget();
                }
            }
        }
    }

    /// Reads the file, plans it against everything committed and commits it if it changes the
    /// configuration in force: the version committed, or `None` when nothing changed. With
    /// `expected`, the file must have that stamp before and after it is read: one that changed
    /// meanwhile, or went (and would read as the built-in default), is tried at the next check.
    async fn commit_once(&self, expected: Option<FileStamp>) -> Result<Option<u64>, CommitError> {
        self.proposer
            .read_barrier()
            .await
            .map_err(|err| CommitError::NotCommitted(err.to_string()))?;
        let source = self.source.clone();
        let read = self
            .passes
            .run(move || read_as_stamped(&source, expected))
            .await
            .ok_or_else(|| CommitError::NotCommitted("reading the file failed".to_owned()))?;
        let file = read
            .ok_or_else(|| {
                CommitError::NotCommitted("the file changed or went while it was read".to_owned())
            })?
            .map_err(|err| CommitError::Refused(err.to_string()))?;
        let plan = self
            .state
            .read(|state| QueueRefresh::plan(state, &self.source, &file))
            .map_err(|err| CommitError::Refused(err.to_string()))?;
        for warning in &plan.warnings {
            tracing::warn!(file = %self.source.describe(), "{warning}");
        }
        let Some(refresh) = plan.refresh else {
            return Ok(None);
        };
        match self
            .proposer
            .propose(RmCommand::V1(refresh.command()))
            .await
        {
            Ok(RmResponse::QueueConfigVersionSet { version }) => Ok(Some(version)),
            Ok(other) => Err(CommitError::NotCommitted(format!("answered {other:?}"))),
            Err(err) => Err(CommitError::NotCommitted(err.to_string())),
        }
    }
}

/// Reads `source`'s file when it has the stamp `expected` before and after the read (any stamp
/// when `None`); `None` when it changed or went meanwhile, so that a file being replaced is
/// never read half-written, nor its absence as the built-in default.
fn read_as_stamped(
    source: &QueueConfigSource,
    expected: Option<FileStamp>,
) -> Option<Result<QueueFile, crate::Error>> {
    let unchanged = || match (expected, source.file.as_deref()) {
        (Some(expected), Some(path)) => FileStamp::of(path).ok() == Some(expected),
        _ => true,
    };
    if !unchanged() {
        return None;
    }
    let read = source.read();
    unchanged().then_some(read)
}

/// What tells one version of the file from another without reading it: its modification time
/// and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    modified: SystemTime,
    len: u64,
}

impl FileStamp {
    fn of(path: &Path) -> std::io::Result<Self> {
        let metadata = std::fs::metadata(path)?;
        Ok(Self {
            modified: metadata.modified()?,
            len: metadata.len(),
        })
    }
}

/// The auto-refresh's memory of the file between two checks.
#[derive(Debug, Default)]
struct FileWatch {
    /// The stamp of the file last tried; `None` before the first check.
    last: Option<FileStamp>,
    /// Whether the file's absence has been reported since it was last seen.
    missing_reported: bool,
}

/// What one check decided.
#[derive(Debug, PartialEq, Eq)]
enum Check {
    /// Commit the file.
    Changed,
    /// Nothing to do.
    Unchanged,
    /// The file cannot be read; `report` the first time only.
    Missing { report: bool },
}

impl FileWatch {
    /// Decides on the file as `stamp` finds it now (`None`: it cannot be read).
    fn check(&mut self, stamp: Option<FileStamp>) -> Check {
        let Some(stamp) = stamp else {
            let report = !self.missing_reported;
            self.missing_reported = true;
            return Check::Missing { report };
        };
        self.missing_reported = false;
        if self.last == Some(stamp) {
            return Check::Unchanged;
        }
        self.last = Some(stamp);
        Check::Changed
    }

    /// Forgets the last stamp, so that the next check tries the file again.
    fn forget(&mut self) {
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(seconds: u64, len: u64) -> Option<FileStamp> {
        Some(FileStamp {
            modified: SystemTime::UNIX_EPOCH + Duration::from_secs(seconds),
            len,
        })
    }

    #[test]
    fn the_file_is_tried_first_then_on_each_change_and_its_absence_reported_once() {
        let mut watch = FileWatch::default();
        assert_eq!(
            watch.check(stamp(10, 100)),
            Check::Changed,
            "the first check"
        );
        assert_eq!(watch.check(stamp(10, 100)), Check::Unchanged);
        assert_eq!(watch.check(stamp(11, 100)), Check::Changed, "a newer time");
        assert_eq!(
            watch.check(stamp(11, 120)),
            Check::Changed,
            "another length"
        );
        assert_eq!(watch.check(stamp(11, 120)), Check::Unchanged);
        assert_eq!(watch.check(None), Check::Missing { report: true });
        assert_eq!(watch.check(None), Check::Missing { report: false });
        // Back as it was (a save that renamed over it): nothing to do; gone again: reported.
        assert_eq!(watch.check(stamp(11, 120)), Check::Unchanged);
        assert_eq!(watch.check(None), Check::Missing { report: true });
        assert_eq!(
            watch.check(stamp(9, 120)),
            Check::Changed,
            "an older copy put back"
        );
    }

    #[test]
    fn a_commit_that_did_not_go_through_is_tried_again_at_the_next_check() {
        let mut watch = FileWatch::default();
        assert_eq!(watch.check(stamp(10, 100)), Check::Changed);
        watch.forget();
        assert_eq!(watch.check(stamp(10, 100)), Check::Changed);
        assert_eq!(watch.check(stamp(10, 100)), Check::Unchanged);
    }

    #[test]
    fn a_file_is_read_only_as_it_was_stamped_and_never_its_absence() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("capacity-scheduler.xml");
        let source = QueueConfigSource {
            file: Some(path.clone()),
            settings: yarn_scheduler::SchedulerSettings::default(),
            groups: yarn_security::Groups::fixed(std::collections::BTreeMap::new()),
        };
        let xml = yarn_conf::writer::site_xml([
            ("yarn.scheduler.capacity.root.queues", "a"),
            ("yarn.scheduler.capacity.root.a.capacity", "100"),
        ]);
        std::fs::write(&path, &xml).unwrap();
        let stamp = FileStamp::of(&path).unwrap();
        let read = read_as_stamped(&source, Some(stamp))
            .expect("as stamped")
            .unwrap();
        assert_eq!(read.properties["yarn.scheduler.capacity.root.queues"], "a");
        // Gone since it was stamped: not read as the built-in default (root.default).
        std::fs::remove_file(&path).unwrap();
        assert!(read_as_stamped(&source, Some(stamp)).is_none());
        // Back with other content: not the version stamped either.
        std::fs::write(&path, format!("{xml}\n")).unwrap();
        assert!(read_as_stamped(&source, Some(stamp)).is_none());
        // The initial commit takes the file as it is.
        assert!(read_as_stamped(&source, None).is_some());
    }

    #[test]
    fn a_stamp_is_the_files_time_and_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("capacity-scheduler.xml");
        assert!(FileStamp::of(&path).is_err(), "absent");
        std::fs::write(&path, "<configuration/>").unwrap();
        let first = FileStamp::of(&path).unwrap();
        assert_eq!(first.len, 16);
        std::fs::write(&path, "<configuration></configuration>").unwrap();
        assert_ne!(FileStamp::of(&path).unwrap(), first);
    }
}

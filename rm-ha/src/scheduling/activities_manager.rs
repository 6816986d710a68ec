//! [`ActivitiesManager`]: the scheduler and application activities a leader records on demand.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use yarn_proto::ids::ApplicationId;
use yarn_scheduler::{ActivitiesRecorder, AppActivity, MAX_RECORDS_PER_RECORDER};

use super::ActivitiesSettings;

/// The most applications recorded at once: each pass builds their records, and each keeps up
/// to `app-activities.max-queue-length` of them.
pub const MAX_RECORDED_APPLICATIONS: usize = 1_000;

/// A scheduling pass recorded for `GET /ws/v1/cluster/scheduler/activities`.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedPass {
    /// When the pass ran.
    pub at_ms: i64,
    /// Each attempt to give an application a container, in the order the pass made them.
    pub records: Vec<AppActivity>,
    /// Attempts beyond what one recording keeps.
    pub dropped: usize,
}

/// One attempt recorded for an application.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedActivity {
    /// When the pass ran.
    pub at_ms: i64,
    /// What it decided.
    pub activity: AppActivity,
}

/// An application being recorded, or recorded lately.
#[derive(Debug, Clone, Default)]
struct AppRecording {
    /// Passes before this time record the application.
    until_ms: i64,
    /// The newest activities, oldest first, at most `app_max_queue_length`.
    entries: VecDeque<RecordedActivity>,
}

/// What the leader records, and for whom: the next scheduling pass that considers any
/// application, asked for by each read of the scheduler activities (the read answers with the
/// pass recorded before, as Hadoop's does), and the applications whose recording was
/// refreshed, each for the time the refresh asked.
///
/// Soft state of one leadership: a new leader starts with nothing recorded. Expired records
/// go at the first call after each `cleanup_interval`: a pass older than `scheduler_ttl`, an
/// application no longer recorded whose newest activity is older than `app_ttl`.
#[derive(Debug, Default)]
pub struct ActivitiesManager {
    settings: ActivitiesSettings,
    next_pass_wanted: bool,
    /// Shared with readers, so a read copies nothing under the lock the pass takes.
    last_pass: Option<Arc<RecordedPass>>,
    applications: BTreeMap<ApplicationId, AppRecording>,
    next_cleanup_ms: i64,
}

impl ActivitiesManager {
    /// Nothing recorded, under `settings`.
    pub fn new(settings: ActivitiesSettings) -> Self {
        Self {
            settings,
            ..Self::default()
        }
    }

    /// Asks for the next pass that considers an application to be recorded.
    pub fn want_next_pass(&mut self) {
        self.next_pass_wanted = true;
    }

    /// Records `application_id`'s activities in the passes before `until_ms` (a refresh of
    /// its recording keeps what was recorded before).
    ///
    /// # Errors
    ///
    /// When [`MAX_RECORDED_APPLICATIONS`] other applications are being recorded at `now_ms`.
    pub fn record_application(
        &mut self,
        application_id: ApplicationId,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<(), String> {
        let recording = |recording: &AppRecording| recording.until_ms > now_ms;
        let others = self
            .applications
            .iter()
            .filter(|(id, r)| **id != application_id && recording(r))
            .count();
        if others >= MAX_RECORDED_APPLICATIONS {
            return Err(format!(
                "{MAX_RECORDED_APPLICATIONS} applications are being recorded already; try \
                 again once some recordings end"
            ));
        }
        let recording = self.applications.entry(application_id).or_default();
        recording.until_ms = recording.until_ms.max(until_ms);
        Ok(())
    }

    /// The recorder of a pass starting at `now_ms`, or `None` when nothing is to be recorded.
    pub fn recorder(&self, now_ms: i64) -> Option<ActivitiesRecorder> {
        let applications: BTreeSet<ApplicationId> = self
            .applications
            .iter()
            .filter(|(_, recording)| recording.until_ms > now_ms)
            .map(|(id, _)| *id)
            .collect();
        (self.next_pass_wanted || !applications.is_empty())
            .then(|| ActivitiesRecorder::new(self.next_pass_wanted, applications))
    }

    /// Takes in what a pass that ran at `now_ms` recorded.
    pub fn finish_pass(&mut self, recorder: ActivitiesRecorder, now_ms: i64) {
        let everyone = recorder.records_everyone();
        let dropped = recorder.dropped();
        let records = recorder.into_records();
        for record in &records {
            let Some(recording) = self.applications.get_mut(&record.application_id) else {
                continue;
            };
            if recording.until_ms <= now_ms {
                continue;
            }
            if recording.entries.len() == self.settings.app_max_queue_length {
                recording.entries.pop_front();
            }
            recording.entries.push_back(RecordedActivity {
                at_ms: now_ms,
                activity: record.clone(),
            });
        }
        // A pass that considered nobody leaves the reader waiting for one that does.
        if everyone && !records.is_empty() {
            // A pass keeps its first attempts; the named applications' beyond them are counted.
            let mut records = records;
            let beyond = records.len().saturating_sub(MAX_RECORDS_PER_RECORDER);
            records.truncate(MAX_RECORDS_PER_RECORDER);
            self.next_pass_wanted = false;
            self.last_pass = Some(Arc::new(RecordedPass {
                at_ms: now_ms,
                records,
                dropped: dropped + beyond,
            }));
        }
        self.clean_up(now_ms);
    }

    /// The last pass recorded, if not expired.
    pub fn last_pass(&mut self, now_ms: i64) -> Option<Arc<RecordedPass>> {
        self.clean_up(now_ms);
        self.last_pass.clone()
    }

    /// `application_id`'s recorded activities, newest first; `None` when it was never
    /// recorded or its records expired.
    pub fn application(
        &mut self,
        application_id: ApplicationId,
        now_ms: i64,
    ) -> Option<Vec<RecordedActivity>> {
        self.clean_up(now_ms);
        let recording = self.applications.get(&application_id)?;
        Some(recording.entries.iter().rev().cloned().collect())
    }

    fn clean_up(&mut self, now_ms: i64) {
        if now_ms < self.next_cleanup_ms {
            return;
        }
        let millis = |d: std::time::Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        self.next_cleanup_ms = now_ms.saturating_add(millis(self.settings.cleanup_interval));
        let scheduler_ttl = millis(self.settings.scheduler_ttl);
        if self
            .last_pass
            .as_ref()
            .is_some_and(|pass| now_ms.saturating_sub(pass.at_ms) > scheduler_ttl)
        {
            self.last_pass = None;
        }
        let app_ttl = millis(self.settings.app_ttl);
        self.applications.retain(|_, recording| {
            let newest = recording
                .entries
                .back()
                .map_or(recording.until_ms, |entry| {
                    entry.at_ms.max(recording.until_ms)
                });
            recording.until_ms > now_ms || now_ms.saturating_sub(newest) <= app_ttl
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn app(id: i32) -> ApplicationId {
        ApplicationId {
            cluster_timestamp: 1,
            id,
        }
    }

    fn pass(manager: &ActivitiesManager, now_ms: i64, apps: &[i32]) -> Option<ActivitiesRecorder> {
        let mut recorder = manager.recorder(now_ms)?;
        for id in apps {
            if recorder.admits(app(*id)) {
                recorder.push(AppActivity::new(app(*id), "root.a", 0, ""));
            }
        }
        Some(recorder)
    }

    fn settings() -> ActivitiesSettings {
        ActivitiesSettings {
            cleanup_interval: Duration::from_millis(10),
            scheduler_ttl: Duration::from_millis(1_000),
            app_ttl: Duration::from_millis(2_000),
            app_max_queue_length: 3,
        }
    }

    #[test]
    fn the_next_pass_that_considers_an_application_is_recorded_once_asked_and_expires() {
        let mut manager = ActivitiesManager::new(settings());
        assert!(manager.recorder(0).is_none(), "nobody asked");
        manager.want_next_pass();
        let idle = pass(&manager, 10, &[]).unwrap();
        manager.finish_pass(idle, 10);
        assert!(
            manager.last_pass(10).is_none(),
            "an idle pass leaves the reader waiting"
        );
        let busy = pass(&manager, 20, &[1, 2]).unwrap();
        manager.finish_pass(busy, 20);
        let recorded = manager.last_pass(20).unwrap();
        assert_eq!((recorded.at_ms, recorded.records.len()), (20, 2));
        assert!(manager.recorder(30).is_none(), "recorded once per request");
        assert!(manager.last_pass(1_020).is_some());
        assert!(
            manager.last_pass(1_021).is_some(),
            "expired, but the next clean-up is at 1,030"
        );
        assert!(manager.last_pass(1_030).is_none(), "cleaned up");
    }

    #[test]
    fn an_application_is_recorded_until_its_time_keeping_the_newest_and_expires() {
        let mut manager = ActivitiesManager::new(settings());
        assert_eq!(manager.application(app(1), 0), None);
        manager.record_application(app(1), 0, 100).unwrap();
        for now in [10, 20, 30, 40] {
            let recorder = pass(&manager, now, &[1, 2]).unwrap();
            manager.finish_pass(recorder, now);
        }
        let recorded = manager.application(app(1), 50).unwrap();
        let times: Vec<i64> = recorded.iter().map(|r| r.at_ms).collect();
        assert_eq!(times, vec![40, 30, 20], "newest first, at most three kept");
        assert_eq!(manager.application(app(2), 50), None, "not asked for");
        assert!(manager.recorder(100).is_none(), "recording ended");
        assert!(manager.application(app(1), 2_040).is_some());
        assert_eq!(
            manager.application(app(1), 2_101),
            None,
            "expired after the ttl"
        );
    }

    #[test]
    fn at_most_so_many_applications_are_recorded_at_once() {
        let mut manager = ActivitiesManager::new(settings());
        let count = i32::try_from(MAX_RECORDED_APPLICATIONS).unwrap();
        for id in 1..=count {
            manager.record_application(app(id), 0, 100).unwrap();
        }
        manager
            .record_application(app(1), 0, 200)
            .expect("a refresh of one recorded");
        let refused = manager
            .record_application(app(count + 1), 0, 100)
            .unwrap_err();
        assert!(refused.contains("1000 applications"), "{refused}");
        // Once their recordings end, their records kept do not hold the room.
        manager
            .record_application(app(count + 1), 150, 300)
            .expect("only application 1 is still being recorded");
    }
}

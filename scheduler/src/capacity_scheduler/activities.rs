//! Recording what scheduling passes decide, while someone asks (Hadoop's activities).

use super::CapacityScheduler;
use crate::activities::{ActivitiesRecorder, AppActivity};

impl CapacityScheduler {
    /// Records what the following calls decide in `recorder` (replacing any recorder held),
    /// until [`take_activities`](Self::take_activities); `None` stops recording. Recording
    /// changes no decision.
    pub fn record_activities(&mut self, recorder: Option<ActivitiesRecorder>) {
        self.activities = recorder.map(Box::new);
    }

    /// The recorder held, with what it recorded; recording stops.
    pub fn take_activities(&mut self) -> Option<ActivitiesRecorder> {
        self.activities.take().map(|recorder| *recorder)
    }

    /// A new record for `application_id` on `partition`'s nodes, when it is being recorded.
    #[inline]
    pub(super) fn start_activity(
        &self,
        application_id: yarn_proto::ids::ApplicationId,
        partition: &str,
    ) -> Option<AppActivity> {
        if !self.activities.as_ref()?.admits(application_id) {
            return None;
        }
        let app = self.applications.get(&application_id)?;
        Some(AppActivity::new(
            application_id,
            &self.queues[app.leaf].conf.path,
            app.priority,
            partition,
        ))
    }

    /// Keeps `activity`, when there is one.
    #[inline]
    pub(super) fn keep_activity(&mut self, activity: Option<AppActivity>) {
        if let (Some(recorder), Some(activity)) = (self.activities.as_mut(), activity) {
            recorder.push(activity);
        }
    }
}

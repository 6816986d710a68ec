//! [`ActivitiesRecorder`]: what the scheduler decided for each application it considered, kept
//! while someone asks (Hadoop's scheduler and application activities).
//!
//! The scheduler holds a recorder only while one is wanted; without one, each decision costs
//! one branch. The records say, for one attempt to give an application a container, which
//! queue it was tried in, each request tried, the node it went to or why it was skipped: the
//! queue's or an ancestor's maximum capacity, the user limit, the AM limits and
//! `max-parallel-apps` (when the application waits to be activated), no node with room, delay
//! scheduling, or a partition the request does not name.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt;

use yarn_proto::ids::{ApplicationId, ContainerId, NodeId};

use crate::Resource;
use crate::pending_reason::PendingReason;

/// The most application records one recorder keeps of a pass recording everyone; later ones
/// are counted, not built, so a pass over 100,000 applications cannot make the recording grow
/// without bound. The applications named have as many again of their own.
pub const MAX_RECORDS_PER_RECORDER: usize = 1_000;

/// The most requests one [`AppActivity`] keeps passed over; later ones are counted.
pub const MAX_REQUESTS_PER_RECORD: usize = 100;

/// Hadoop's `ActivityState`, as far as yarn-ha's scheduler reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivityState {
    /// A container was placed.
    Allocated,
    /// Tried and passed over for now.
    Skipped,
    /// Refused outright for this pass (the user limit).
    Rejected,
}

impl ActivityState {
    /// Hadoop's name of the state.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allocated => "ALLOCATED",
            Self::Skipped => "SKIPPED",
            Self::Rejected => "REJECTED",
        }
    }
}

/// Why something was passed over, printed with Hadoop's diagnostic text first and the figures
/// after it.
#[derive(Debug, Clone, PartialEq)]
pub enum ActivityDiagnostic {
    /// The user is over its user limit in the leaf.
    UserLimit {
        /// The user.
        user: String,
        /// What the user uses in the leaf.
        used: Resource,
        /// The user's limit there.
        limit: Resource,
    },
    /// One more container of `resource` would take `queue` over its maximum capacity.
    QueueMaxCapacity {
        /// The leaf or the ancestor at its maximum.
        queue: String,
        /// The container's size.
        resource: Resource,
    },
    /// The application waits to be activated: `max-parallel-apps` or an AM limit.
    NotActivated(PendingReason),
    /// No node the request may use has room for it.
    NoNodeWithRoom {
        /// The container's size.
        resource: Resource,
    },
    /// Delay scheduling holds the request until it has missed more scheduling opportunities.
    LocalityDelay {
        /// Whether it is the off-switch delay (the request may go anywhere later), rather than
        /// the rack delay.
        off_switch: bool,
    },
    /// The request is for another partition than the nodes being offered.
    OtherPartition {
        /// The request's partition (`""`: the default partition).
        requested: String,
        /// The partition of the nodes offered.
        offered: String,
    },
}

impl fmt::Display for ActivityDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UserLimit { user, used, limit } => write!(
                f,
                "Queue hits user max-capacity limit: user {user} uses {used}, its limit is {limit}"
            ),
            Self::QueueMaxCapacity { queue, resource } => write!(
                f,
                "Queue hits max-capacity limit: {resource} more would take {queue} over its \
                 maximum capacity"
            ),
            Self::NotActivated(reason) => write!(f, "Application is not activated: {reason}"),
            Self::NoNodeWithRoom { resource } => write!(
                f,
                "Node does not have sufficient resource for request: no node it may use has \
                 room for {resource}"
            ),
            Self::LocalityDelay { off_switch: true } => f.write_str(
                "Node skipped because of off-switch delay: the request waits for more \
                 scheduling opportunities before it may go to any node",
            ),
            Self::LocalityDelay { off_switch: false } => f.write_str(
                "Node skipped because node/rack locality cannot be satisfied: the request waits \
                 for more scheduling opportunities before it may go to another rack",
            ),
            Self::OtherPartition { requested, offered } => write!(
                f,
                "Node does not match partition or placement constraints: the request is for \
                 partition {:?}, the nodes offered are in {:?}",
                requested, offered
            ),
        }
    }
}

/// One request's outcome in an [`AppActivity`].
#[derive(Debug, Clone, PartialEq)]
pub struct RequestActivity {
    /// The request's priority (0 for the AM container).
    pub priority: i32,
    /// Its allocation request id (-1 for the AM container).
    pub allocation_request_id: i64,
    /// What became of it.
    pub state: ActivityState,
    /// Why it was passed over; `None` when allocated.
    pub diagnostic: Option<ActivityDiagnostic>,
    /// The node it went to.
    pub node: Option<NodeId>,
    /// The container it got.
    pub container: Option<ContainerId>,
}

/// One attempt to give an application a container, or to activate it.
#[derive(Debug, Clone, PartialEq)]
pub struct AppActivity {
    /// The application.
    pub application_id: ApplicationId,
    /// Its leaf queue's path.
    pub queue: String,
    /// Its priority.
    pub app_priority: i32,
    /// The partition whose nodes were offered (`""`: the default partition).
    pub partition: String,
    /// What became of the attempt: allocated when one request was.
    pub state: ActivityState,
    /// Why the application as a whole was passed over, when it was.
    pub diagnostic: Option<ActivityDiagnostic>,
    /// The requests tried, in the order they were (the one allocated always, at most
    /// [`MAX_REQUESTS_PER_RECORD`] passed over).
    pub requests: Vec<RequestActivity>,
    /// Requests passed over beyond [`MAX_REQUESTS_PER_RECORD`], counted only.
    pub requests_not_kept: usize,
}

impl AppActivity {
    /// An attempt for `application_id` in `queue`, skipped until something is recorded.
    pub fn new(
        application_id: ApplicationId,
        queue: &str,
        app_priority: i32,
        partition: &str,
    ) -> Self {
        Self {
            application_id,
            queue: queue.to_owned(),
            app_priority,
            partition: partition.to_owned(),
            state: ActivityState::Skipped,
            diagnostic: None,
            requests: Vec::new(),
            requests_not_kept: 0,
        }
    }

    /// Records a request passed over for the reason `diagnostic` builds (only when the request
    /// is kept).
    pub fn skip(
        &mut self,
        (priority, allocation_request_id): (i32, i64),
        diagnostic: impl FnOnce() -> ActivityDiagnostic,
    ) {
        if self.requests.len() >= MAX_REQUESTS_PER_RECORD {
            self.requests_not_kept += 1;
            return;
        }
        self.requests.push(RequestActivity {
            priority,
            allocation_request_id,
            state: ActivityState::Skipped,
            diagnostic: Some(diagnostic()),
            node: None,
            container: None,
        });
    }

    /// Records a request that got `container` on `node`, which makes the attempt allocated.
    pub fn allocate(
        &mut self,
        (priority, allocation_request_id): (i32, i64),
        node: NodeId,
        container: ContainerId,
    ) {
        self.state = ActivityState::Allocated;
        self.requests.push(RequestActivity {
            priority,
            allocation_request_id,
            state: ActivityState::Allocated,
            diagnostic: None,
            node: Some(node),
            container: Some(container),
        });
    }

    /// Marks the whole attempt passed over (`Skipped`) or refused (`Rejected`) for
    /// `diagnostic`.
    pub fn pass_over(&mut self, state: ActivityState, diagnostic: ActivityDiagnostic) {
        self.state = state;
        self.diagnostic = Some(diagnostic);
    }
}

/// Collects [`AppActivity`] records of every application, or of the ones named.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActivitiesRecorder {
    everyone: bool,
    applications: BTreeSet<ApplicationId>,
    records: Vec<AppActivity>,
    /// Counted while the scheduler only reads the recorder, deciding whether to build a record.
    dropped: Cell<usize>,
}

impl ActivitiesRecorder {
    /// Records every application's activities (and `applications`' in any case).
    pub fn new(everyone: bool, applications: BTreeSet<ApplicationId>) -> Self {
        Self {
            everyone,
            applications,
            ..Self::default()
        }
    }

    /// Whether `application_id`'s activities are recorded: any application's while everyone
    /// is recorded, within [`MAX_RECORDS_PER_RECORDER`] records; a named one's beyond that,
    /// within as many again. One refused for want of room is counted.
    pub fn admits(&self, application_id: ApplicationId) -> bool {
        let room = if self.applications.contains(&application_id) {
            2 * MAX_RECORDS_PER_RECORDER
        } else if self.everyone {
            MAX_RECORDS_PER_RECORDER
        } else {
            return false;
        };
        if self.records.len() < room {
            return true;
        }
        self.dropped.set(self.dropped.get() + 1);
        false
    }

    /// Whether every application is recorded.
    pub fn records_everyone(&self) -> bool {
        self.everyone
    }

    /// Keeps `record` (of an application it [`admits`](Self::admits)).
    pub fn push(&mut self, record: AppActivity) {
        self.records.push(record);
    }

    /// The records kept, in the order they were made.
    pub fn records(&self) -> &[AppActivity] {
        &self.records
    }

    /// How many records were not built for want of room.
    pub fn dropped(&self) -> usize {
        self.dropped.get()
    }

    /// The records kept, given up.
    pub fn into_records(self) -> Vec<AppActivity> {
        self.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(id: i32) -> ApplicationId {
        ApplicationId {
            cluster_timestamp: 1,
            id,
        }
    }

    #[test]
    fn a_recorder_admits_everyone_up_to_its_room_and_the_applications_named_always() {
        let named = ActivitiesRecorder::new(false, [app(2)].into());
        assert!(named.admits(app(2)) && !named.admits(app(3)));
        let mut everyone = ActivitiesRecorder::new(true, [app(2)].into());
        for _ in 0..MAX_RECORDS_PER_RECORDER + 5 {
            if everyone.admits(app(3)) {
                everyone.push(AppActivity::new(app(3), "root.a", 0, ""));
            }
        }
        assert_eq!(everyone.records().len(), MAX_RECORDS_PER_RECORDER);
        assert_eq!(everyone.dropped(), 5);
        for _ in 0..MAX_RECORDS_PER_RECORDER + 2 {
            if everyone.admits(app(2)) {
                everyone.push(AppActivity::new(app(2), "root.a", 0, ""));
            }
        }
        assert_eq!(
            everyone.records().len(),
            2 * MAX_RECORDS_PER_RECORDER,
            "a named application has room of its own, bounded too"
        );
        assert_eq!(everyone.dropped(), 7);
    }

    #[test]
    fn a_record_keeps_a_bounded_number_of_requests_passed_over() {
        let mut activity = AppActivity::new(app(1), "root.a", 0, "");
        for id in 0..MAX_REQUESTS_PER_RECORD + 3 {
            let id = i64::try_from(id).unwrap();
            activity.skip((1, id), || ActivityDiagnostic::LocalityDelay {
                off_switch: true,
            });
        }
        assert_eq!(activity.requests.len(), MAX_REQUESTS_PER_RECORD);
        assert_eq!(activity.requests_not_kept, 3);
    }

    #[test]
    fn diagnostics_start_with_hadoops_text() {
        let cases = [
            (
                ActivityDiagnostic::UserLimit {
                    user: "alice".into(),
                    used: Resource::new(4096, 4),
                    limit: Resource::new(2048, 2),
                },
                "Queue hits user max-capacity limit: user alice uses",
            ),
            (
                ActivityDiagnostic::QueueMaxCapacity {
                    queue: "root.a".into(),
                    resource: Resource::new(1024, 1),
                },
                "Queue hits max-capacity limit: ",
            ),
            (
                ActivityDiagnostic::NoNodeWithRoom {
                    resource: Resource::new(1024, 1),
                },
                "Node does not have sufficient resource for request",
            ),
            (
                ActivityDiagnostic::LocalityDelay { off_switch: true },
                "Node skipped because of off-switch delay",
            ),
            (
                ActivityDiagnostic::LocalityDelay { off_switch: false },
                "Node skipped because node/rack locality cannot be satisfied",
            ),
            (
                ActivityDiagnostic::OtherPartition {
                    requested: "gpu".into(),
                    offered: String::new(),
                },
                "Node does not match partition or placement constraints",
            ),
            (
                ActivityDiagnostic::NotActivated(PendingReason::ClusterResourceEmpty),
                "Application is not activated: Cluster's resource is empty.",
            ),
        ];
        for (diagnostic, start) in cases {
            let text = diagnostic.to_string();
            assert!(text.starts_with(start), "{text}");
        }
    }

    #[test]
    fn an_attempt_is_allocated_once_a_request_is() {
        let mut activity = AppActivity::new(app(1), "root.a", 3, "");
        activity.skip((1, 0), || ActivityDiagnostic::LocalityDelay {
            off_switch: true,
        });
        assert_eq!(activity.state, ActivityState::Skipped);
        let node = NodeId {
            host: "h".into(),
            port: 1,
        };
        let container = ContainerId::new(
            yarn_proto::ids::ApplicationAttemptId {
                application_id: app(1),
                attempt_id: 1,
            },
            0,
            2,
        )
        .unwrap();
        activity.allocate((2, 0), node.clone(), container);
        assert_eq!(activity.state, ActivityState::Allocated);
        assert_eq!(activity.requests.len(), 2);
        assert_eq!(activity.requests[1].node, Some(node));
    }
}

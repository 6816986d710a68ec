//! [`History`]: every operation the workload performed, with when it was invoked, when it
//! completed and how it ended.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::run_clock::RunClock;

/// One operation of the workload, as a client saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    /// Its number, unique in the run, in invocation order.
    pub id: u64,
    /// Which workload process performed it (`job-1`, `refresher`, `reader`).
    pub process: String,
    /// What it asked.
    pub kind: OperationKind,
    /// When it was invoked, in milliseconds on the [`RunClock`].
    pub invoke_ms: u64,
    /// When its answer (or failure) came back.
    pub complete_ms: u64,
    /// How it ended.
    pub outcome: Outcome,
}

/// What an operation asked, with its inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum OperationKind {
    /// GetNewApplication: reserve an application id.
    GetNewApplication,
    /// SubmitApplication of a distributed-shell job; acknowledged when it returns success.
    SubmitApplication {
        /// The application submitted.
        application_id: String,
    },
    /// Polling an acknowledged application's report until it reaches a final state.
    AwaitFinalState {
        /// The application awaited.
        application_id: String,
    },
    /// GetContainers of one attempt: the allocations the ResourceManager acknowledges.
    ListContainers {
        /// The application.
        application_id: String,
        /// The attempt number.
        attempt: i32,
    },
    /// Admin RefreshQueues with unchanged files.
    RefreshQueues,
    /// GetClusterMetrics.
    GetClusterMetrics,
    /// GetClusterNodes.
    GetClusterNodes,
    /// Admin GetClusterMembership.
    GetClusterMembership,
    /// An ApplicationMasterProtocol call of the token probe, presenting an AMRMToken it has
    /// held since `token_ms`.
    ProbeAmCall {
        /// `register`, `allocate` or `finish`.
        rpc: String,
        /// The probe's unmanaged application.
        application_id: String,
        /// When the probe got the AMRMToken presented (read from the report, or sent back by
        /// the RM after a key roll), on the run clock.
        token_ms: u64,
    },
    /// The token probe starting a container allocated at `token_ms`, presenting the container
    /// token and NM token that came with that allocation.
    ProbeStartContainer {
        /// The container.
        container_id: String,
        /// Its node, `host:port`.
        node_id: String,
        /// When the allocation (and its tokens) reached the probe, on the run clock.
        token_ms: u64,
    },
    /// The harness killing one of its own applications that it could not end otherwise (the
    /// token probe's, when finishing it kept failing): not a failure of the application.
    KillOwnApplication {
        /// The application killed.
        application_id: String,
    },
}

/// How an operation ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Outcome {
    /// It succeeded with this result.
    Ok {
        /// What it returned.
        result: OperationResult,
    },
    /// It failed, or its outcome is unknown (a timeout); the client's error.
    Failed {
        /// The error as the client reported it.
        error: String,
    },
    /// The server turned down the credentials presented (a token); the client's error.
    Refused {
        /// The error as the client reported it.
        error: String,
    },
}

impl Outcome {
    /// Whether the operation succeeded.
    pub fn is_ok(&self) -> bool {
        matches!(self, Outcome::Ok { .. })
    }
}

/// What a successful operation returned, as far as the checkers need it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum OperationResult {
    /// Nothing worth keeping.
    Done,
    /// An application id.
    Application {
        /// The id.
        application_id: String,
    },
    /// A final application state.
    FinalState {
        /// FINISHED, FAILED or KILLED.
        state: String,
        /// The final status the ApplicationMaster reported.
        final_status: String,
        /// The number of the attempt that was current at the end.
        attempt: i32,
    },
    /// Containers as the ResourceManager listed them.
    Containers {
        /// The containers.
        containers: Vec<RmContainer>,
    },
    /// A count (nodes, members, running applications).
    Count {
        /// The count.
        count: u64,
    },
}

/// One container of a GetContainers answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RmContainer {
    /// The container id.
    pub id: String,
    /// Its node, `host:port`.
    pub node_id: String,
    /// NEW, RUNNING, COMPLETE, ...
    pub state: String,
    /// Its memory in MB as the RM listed it; 0 when unknown (histories written before sizes
    /// were recorded).
    #[serde(default)]
    pub memory_mb: u64,
    /// Its vcores as the RM listed it; 0 when unknown.
    #[serde(default)]
    pub vcores: u64,
}

/// The workload's operations, in invocation order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// Every operation.
    pub operations: Vec<Operation>,
}

impl History {
    /// The applications whose submission was acknowledged, with the first acknowledging
    /// operation of each.
    pub fn acknowledged_submissions(&self) -> BTreeMap<&str, &Operation> {
        let mut acknowledged = BTreeMap::new();
        for operation in &self.operations {
            if let (OperationKind::SubmitApplication { application_id }, true) =
                (&operation.kind, operation.outcome.is_ok())
            {
                acknowledged
                    .entry(application_id.as_str())
                    .or_insert(operation);
            }
        }
        acknowledged
    }

    /// The successful GetContainers answers, in completion order.
    pub fn container_lists(&self) -> Vec<ContainerList<'_>> {
        let mut lists: Vec<ContainerList<'_>> = self
            .operations
            .iter()
            .filter_map(|operation| {
                let OperationKind::ListContainers {
                    application_id,
                    attempt,
                } = &operation.kind
                else {
                    return None;
                };
                let Outcome::Ok {
                    result: OperationResult::Containers { containers },
                } = &operation.outcome
                else {
                    return None;
                };
                Some(ContainerList {
                    application_id,
                    attempt: *attempt,
                    invoke_ms: operation.invoke_ms,
                    complete_ms: operation.complete_ms,
                    containers,
                })
            })
            .collect();
        lists.sort_by_key(|list| list.complete_ms);
        lists
    }

    /// Whether a submission was acknowledged at `since_ms` or later.
    pub fn acknowledged_since(&self, since_ms: u64) -> bool {
        self.operations.iter().any(|operation| {
            matches!(operation.kind, OperationKind::SubmitApplication { .. })
                && operation.outcome.is_ok()
                && operation.complete_ms >= since_ms
        })
    }

    /// Whether the harness itself killed (or tried to kill) `application_id`.
    pub fn killed_by_harness(&self, application_id: &str) -> bool {
        self.operations.iter().any(|operation| {
            matches!(&operation.kind, OperationKind::KillOwnApplication { application_id: id }
                if id == application_id)
        })
    }

    /// How many operations of each kind succeeded and failed, by the kind's name.
    pub fn counts(&self) -> BTreeMap<String, (u64, u64)> {
        let mut counts: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for operation in &self.operations {
            let name = match serde_json::to_value(&operation.kind) {
                Ok(value) => value["op"].as_str().unwrap_or("unknown").to_owned(),
                Err(_) => "unknown".to_owned(),
            };
            let entry = counts.entry(name).or_default();
            if operation.outcome.is_ok() {
                entry.0 += 1;
            } else {
                entry.1 += 1;
            }
        }
        counts
    }
}

/// One successful GetContainers answer, borrowed from the history.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContainerList<'a> {
    /// The application.
    pub application_id: &'a str,
    /// The attempt.
    pub attempt: i32,
    /// When the call was made.
    pub invoke_ms: u64,
    /// When the answer came.
    pub complete_ms: u64,
    /// What the ResourceManager listed.
    pub containers: &'a [RmContainer],
}

/// Records operations from many tasks into one history. Cheap to clone; every clone records
/// into the same history.
#[derive(Debug, Clone)]
pub struct HistoryRecorder {
    clock: RunClock,
    next_id: Arc<AtomicU64>,
    operations: Arc<Mutex<Vec<Operation>>>,
}

/// An operation that was invoked and has not completed yet.
#[derive(Debug)]
pub struct PendingOperation {
    id: u64,
    process: String,
    kind: OperationKind,
    invoke_ms: u64,
}

impl HistoryRecorder {
    /// An empty history on `clock`.
    pub fn new(clock: RunClock) -> Self {
        Self {
            clock,
            next_id: Arc::new(AtomicU64::new(0)),
            operations: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Now, on the run clock.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// Notes that `process` invokes `kind` now.
    pub fn invoke(&self, process: &str, kind: OperationKind) -> PendingOperation {
        PendingOperation {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            process: process.to_owned(),
            kind,
            invoke_ms: self.clock.now_ms(),
        }
    }

    /// Records that `pending` completed now with `outcome`.
    pub fn complete(&self, pending: PendingOperation, outcome: Outcome) {
        let operation = Operation {
            id: pending.id,
            process: pending.process,
            kind: pending.kind,
            invoke_ms: pending.invoke_ms,
            complete_ms: self.clock.now_ms(),
            outcome,
        };
        // A panic while holding the lock cannot leave the list half-updated: each update is
        // one push.
        self.operations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(operation);
    }

    /// The history so far, in invocation order.
    pub fn history(&self) -> History {
        let mut operations = self
            .operations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        operations.sort_by_key(|operation| operation.id);
        History { operations }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submit(id: u64, app: &str, ok: bool) -> Operation {
        Operation {
            id,
            process: "job-1".into(),
            kind: OperationKind::SubmitApplication {
                application_id: app.into(),
            },
            invoke_ms: id * 10,
            complete_ms: id * 10 + 5,
            outcome: if ok {
                Outcome::Ok {
                    result: OperationResult::Done,
                }
            } else {
                Outcome::Failed {
                    error: "timed out".into(),
                }
            },
        }
    }

    #[test]
    fn the_first_success_acknowledges_a_submission_and_failures_do_not() {
        let history = History {
            operations: vec![
                submit(0, "app_1", false),
                submit(1, "app_1", true),
                submit(2, "app_1", true),
                submit(3, "app_2", false),
            ],
        };
        let acknowledged = history.acknowledged_submissions();
        assert_eq!(acknowledged.keys().copied().collect::<Vec<_>>(), ["app_1"]);
        assert_eq!(acknowledged["app_1"].id, 1);
        assert_eq!(
            history.counts()["submit-application"],
            (2, 2),
            "{:?}",
            history.counts()
        );
    }

    #[test]
    fn acknowledgements_count_from_when_they_completed() {
        // Completions at 15 (acknowledged) and 25 (failed).
        let history = History {
            operations: vec![submit(1, "app_1", true), submit(2, "app_2", false)],
        };
        assert!(history.acknowledged_since(15));
        assert!(
            !history.acknowledged_since(16),
            "a failure is no acknowledgement"
        );
    }

    #[test]
    fn the_recorder_keeps_invocation_order_and_times() {
        let recorder = HistoryRecorder::new(RunClock::start());
        let first = recorder.invoke("reader", OperationKind::GetClusterMetrics);
        let second = recorder.invoke("reader", OperationKind::RefreshQueues);
        recorder.complete(second, Outcome::Failed { error: "x".into() });
        recorder.complete(
            first,
            Outcome::Ok {
                result: OperationResult::Count { count: 2 },
            },
        );
        let history = recorder.history();
        let kinds: Vec<&OperationKind> = history.operations.iter().map(|o| &o.kind).collect();
        assert_eq!(
            kinds,
            [
                &OperationKind::GetClusterMetrics,
                &OperationKind::RefreshQueues
            ]
        );
        assert!(
            history
                .operations
                .iter()
                .all(|o| o.invoke_ms <= o.complete_ms)
        );
        let json = serde_json::to_value(&history).unwrap();
        assert_eq!(json["operations"][0]["kind"]["op"], "get-cluster-metrics");
        assert_eq!(json["operations"][0]["outcome"]["status"], "ok");
        assert_eq!(json["operations"][1]["outcome"]["status"], "failed");
    }
}

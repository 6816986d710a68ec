//! Synthetic histories and observations for the checkers' tests.

use super::CheckInput;
use crate::failover::Failover;
use crate::fault::Fault;
use crate::history::{History, Operation, OperationKind, OperationResult, Outcome, RmContainer};
use crate::observations::{
    ContainerView, FinalApplication, FinalReport, LeaderSample, NodeInfo, NodeSnapshot,
    Observations, ReplicaAnswer, ReplicaDigest, ReplicaStatus, StateDigestAnswer, WriteSample,
};
use crate::schedule::ScheduledFault;
use crate::timeline::{FaultStatus, TimelineEntry};

/// The id of test application `n`.
pub(crate) fn app(n: u32) -> String {
    format!("application_1700000000000_{n:04}")
}

/// The id of container `seq` of attempt 1 of application `n`, allocated in epoch `epoch`.
pub(crate) fn container(n: u32, seq: u32, epoch: u32) -> String {
    if epoch == 0 {
        format!("container_1700000000000_{n:04}_01_{seq:06}")
    } else {
        format!("container_e{epoch:02}_1700000000000_{n:04}_01_{seq:06}")
    }
}

/// The node id of test NodeManager `nm<n>`.
pub(crate) fn node_id(n: u32) -> String {
    format!("127.0.0.1:{}", 45_000 + n)
}

/// The state digest every replica reports at applied index `index` unless a test sets another:
/// 64 hexadecimal digits that differ from one index to the next.
pub(crate) fn fixture_digest(index: u64) -> String {
    format!("{:064x}", u128::from(index) * 0x9e37_79b9_7f4a_7c15)
}

/// A scenario the checkers read, built step by step.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scenario {
    pub(crate) history: History,
    pub(crate) observations: Observations,
    pub(crate) timeline: Vec<TimelineEntry>,
    pub(crate) failovers: Vec<Failover>,
    pub(crate) end_ms: u64,
}

impl Scenario {
    /// Two NodeManagers of 1024 MB and 4 vcores each, nothing else; the run ends at 100 s.
    pub(crate) fn new() -> Self {
        let mut scenario = Self {
            end_ms: 100_000,
            ..Self::default()
        };
        for n in 1..=2 {
            scenario.observations.nodes.insert(
                format!("nm{n}"),
                NodeInfo {
                    node_id: node_id(n),
                    memory_mb: 1024,
                    vcores: 4,
                },
            );
        }
        scenario
    }

    pub(crate) fn input(&self) -> CheckInput<'_> {
        CheckInput {
            history: &self.history,
            observations: &self.observations,
            timeline: &self.timeline,
            failovers: &self.failovers,
            end_ms: self.end_ms,
        }
    }

    fn operation(&mut self, kind: OperationKind, at: u64, outcome: Outcome) {
        let id = self.history.operations.len() as u64;
        self.history.operations.push(Operation {
            id,
            process: "job-1".into(),
            kind,
            invoke_ms: at,
            complete_ms: at + 5,
            outcome,
        });
    }

    /// A submission of application `n` at `at`, acknowledged or not.
    pub(crate) fn submit(&mut self, n: u32, at: u64, acknowledged: bool) -> &mut Self {
        let outcome = if acknowledged {
            Outcome::Ok {
                result: OperationResult::Done,
            }
        } else {
            Outcome::Failed {
                error: "deadline exceeded".into(),
            }
        };
        self.operation(
            OperationKind::SubmitApplication {
                application_id: app(n),
            },
            at,
            outcome,
        );
        self
    }

    /// A token probe `allocate` invoked at `at`, presenting an AMRMToken obtained at `token`;
    /// accepted, or refused for its token.
    pub(crate) fn probe_am_call(&mut self, token: u64, at: u64, accepted: bool) -> &mut Self {
        self.operation(
            OperationKind::ProbeAmCall {
                rpc: "allocate".into(),
                application_id: app(99),
                token_ms: token,
            },
            at,
            probe_outcome(accepted),
        );
        self
    }

    /// A token probe start of `container` on node 1 at `at`, allocated at `token`; accepted,
    /// or refused for its token.
    pub(crate) fn probe_start(
        &mut self,
        container: &str,
        token: u64,
        at: u64,
        accepted: bool,
    ) -> &mut Self {
        self.operation(
            OperationKind::ProbeStartContainer {
                container_id: container.into(),
                node_id: node_id(1),
                token_ms: token,
            },
            at,
            probe_outcome(accepted),
        );
        self
    }

    /// The harness killing its own application `n` at `at`.
    pub(crate) fn harness_kill(&mut self, n: u32, at: u64) -> &mut Self {
        self.operation(
            OperationKind::KillOwnApplication {
                application_id: app(n),
            },
            at,
            Outcome::Ok {
                result: OperationResult::Done,
            },
        );
        self
    }

    /// A write the prober got committed on `rm_id` at `at`, given application `n`'s id.
    pub(crate) fn prober_write(&mut self, at: u64, rm_id: &str, n: u32) -> &mut Self {
        self.observations.write_samples.push(WriteSample {
            invoked_ms: at.saturating_sub(5),
            at_ms: at,
            rm_id: rm_id.into(),
            application_id: app(n),
        });
        self
    }

    /// A GetNewApplication of the workload answered at `at` with application `n`'s id.
    pub(crate) fn new_application(&mut self, at: u64, n: u32) -> &mut Self {
        self.operation(
            OperationKind::GetNewApplication,
            at.saturating_sub(5),
            Outcome::Ok {
                result: OperationResult::Application {
                    application_id: app(n),
                },
            },
        );
        self
    }

    /// Application `n`'s report after healing.
    pub(crate) fn report(
        &mut self,
        n: u32,
        state: &str,
        final_status: &str,
        attempt: i32,
        diagnostics: &str,
        at: u64,
    ) -> &mut Self {
        self.observations.applications.push(FinalApplication {
            application_id: app(n),
            report: Some(FinalReport {
                state: state.into(),
                final_status: final_status.into(),
                attempt,
                diagnostics: diagnostics.into(),
                observed_at_ms: at,
            }),
            error: None,
        });
        self
    }

    /// Application `n` unknown to the cluster after healing.
    pub(crate) fn missing(&mut self, n: u32) -> &mut Self {
        self.observations.applications.push(FinalApplication {
            application_id: app(n),
            report: None,
            error: Some("NOT_FOUND: no such application".into()),
        });
        self
    }

    /// A replica status change.
    pub(crate) fn leader_sample(
        &mut self,
        at: u64,
        rm_id: &str,
        active: bool,
        term: u64,
        leader: &str,
    ) -> &mut Self {
        self.observations.leader_samples.push(LeaderSample {
            at_ms: at,
            rm_id: rm_id.into(),
            active,
            term,
            leader_rm_id: leader.into(),
        });
        self
    }

    /// What NodeManager `nm<n>` listed at `at`.
    pub(crate) fn snapshot(
        &mut self,
        at: u64,
        n: u32,
        containers: Vec<ContainerView>,
    ) -> &mut Self {
        self.observations.node_snapshots.push(NodeSnapshot {
            at_ms: at,
            node: format!("nm{n}"),
            containers,
        });
        self
    }

    /// GetContainers of application `n`, attempt 1, answered at `at` with `(container,
    /// node n)`, sizes unknown.
    pub(crate) fn rm_list(&mut self, n: u32, at: u64, containers: &[(&str, u32)]) -> &mut Self {
        let sized: Vec<(&str, u32, u64)> = containers
            .iter()
            .map(|(id, node)| (*id, *node, 0))
            .collect();
        self.rm_list_sized(n, at, &sized)
    }

    /// As [`rm_list`](Self::rm_list), each container listed with its memory in MB (0 for
    /// unknown) and 1 vcore.
    pub(crate) fn rm_list_sized(
        &mut self,
        n: u32,
        at: u64,
        containers: &[(&str, u32, u64)],
    ) -> &mut Self {
        let containers = containers
            .iter()
            .map(|(id, node, memory_mb)| RmContainer {
                id: (*id).into(),
                node_id: node_id(*node),
                state: "RUNNING".into(),
                memory_mb: *memory_mb,
                vcores: u64::from(*memory_mb > 0),
            })
            .collect();
        self.operation(
            OperationKind::ListContainers {
                application_id: app(n),
                attempt: 1,
            },
            at,
            Outcome::Ok {
                result: OperationResult::Containers { containers },
            },
        );
        self
    }

    /// A fault that took leader `old` away at `at`, with the first write by `writer` at
    /// `first_write`.
    pub(crate) fn failover(
        &mut self,
        seq: usize,
        at: u64,
        first_write: u64,
        writer: &str,
    ) -> &mut Self {
        self.failovers.push(Failover {
            seq,
            fault: Fault::KillLeader,
            old_leader: "rm1".into(),
            injected_at_ms: at,
            first_write_ms: Some(first_write),
            first_writer: Some(writer.into()),
            unavailable_ms: Some(first_write - at),
        });
        self
    }

    /// A fault on NodeManager `nm<n>` in force from `from` to `to`.
    pub(crate) fn node_fault(
        &mut self,
        seq: usize,
        fault: Fault,
        n: u32,
        from: u64,
        to: u64,
    ) -> &mut Self {
        let scheduled = ScheduledFault {
            seq,
            at_ms: from,
            fault,
            hold_ms: to - from,
            pick: 0,
        };
        let mut entry =
            TimelineEntry::not_injected(&scheduled, FaultStatus::Injected, String::new());
        entry.reason = None;
        entry.target = Some(format!("nm{n}"));
        entry.nodes = vec![format!("nm{n}")];
        entry.injected_at_ms = Some(from);
        entry.healed_at_ms = Some(to);
        self.timeline.push(entry);
        self
    }

    /// Every replica's status and state digest after healing: `(rm id, term, leader, applied)`.
    /// Each replica's digest is [`fixture_digest`]`(applied)`, taken at `applied` in `term`.
    pub(crate) fn replicas(&mut self, statuses: &[(&str, u64, &str, u64)]) -> &mut Self {
        self.observations.replicas = statuses
            .iter()
            .map(|(rm_id, term, leader, applied)| ReplicaStatus {
                rm_id: (*rm_id).into(),
                answer: Ok(ReplicaAnswer {
                    active: rm_id == leader,
                    term: *term,
                    leader_rm_id: (*leader).into(),
                    last_applied_index: *applied,
                }),
            })
            .collect();
        self.observations.digests = statuses
            .iter()
            .map(|(rm_id, term, _, applied)| ReplicaDigest {
                rm_id: (*rm_id).into(),
                answer: Ok(StateDigestAnswer {
                    applied_index: *applied,
                    applied_term: *term,
                    digest: fixture_digest(*applied),
                }),
            })
            .collect();
        self
    }

    /// Replaces the digest replica `rm_id` reports, keeping its applied index and term.
    pub(crate) fn digest(&mut self, rm_id: &str, digest: &str) -> &mut Self {
        for replica in &mut self.observations.digests {
            if let (true, Ok(answer)) = (replica.rm_id == rm_id, &mut replica.answer) {
                answer.digest = digest.to_owned();
            }
        }
        self
    }
}

/// A container as a NodeManager lists it.
pub(crate) fn view(
    id: &str,
    state: &str,
    execution_type: &str,
    memory_mb: u64,
    exit_code: i32,
) -> ContainerView {
    ContainerView {
        id: id.into(),
        state: state.into(),
        execution_type: execution_type.into(),
        memory_mb,
        vcores: 1,
        exit_code,
    }
}

/// A diagnostics line of the distributed shell for `container` on `nm<node>`.
pub(crate) fn diagnostics_line(container: &str, node: u32, exit: i32, why: &str) -> String {
    let mut line = format!("{container} on {} GUARANTEED exit {exit}", node_id(node));
    if !why.is_empty() {
        line.push_str(": ");
        line.push_str(why);
    }
    line
}

/// How a probe call ended: accepted, or refused for an unknown master key.
fn probe_outcome(accepted: bool) -> Outcome {
    if accepted {
        Outcome::Ok {
            result: OperationResult::Done,
        }
    } else {
        Outcome::Refused {
            error: "UNAUTHENTICATED: the token's master key 3 is unknown".into(),
        }
    }
}

//! The replicated ResourceManager state and its deterministic transition function.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{CommandV1, RmCommand, RmResponse};

/// The state every replica holds identically after applying the same log prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RmState {
    /// Bumped by each new leader's first entry; goes into container ids' high bits.
    pub epoch: u64,
    /// The next application sequence number to hand out; starts at 1 as in YARN.
    pub next_application_seq: i32,
    /// The cluster timestamp of application ids, fixed by the first epoch; 0 before it.
    pub cluster_timestamp_ms: i64,
    /// The queue-configuration version, bumped by compare-and-set.
    pub queue_config_version: u64,
    /// NodeManagers currently decommissioned, by node id.
    pub decommissioned_nodes: BTreeSet<String>,
}

impl Default for RmState {
    fn default() -> Self {
        Self {
            epoch: 0,
            next_application_seq: 1,
            cluster_timestamp_ms: 0,
            queue_config_version: 0,
            decommissioned_nodes: BTreeSet::new(),
        }
    }
}

impl RmState {
    /// Applies one command and returns its result.
    ///
    /// Deterministic: it reads no clock, draws no randomness and does no I/O, so every replica
    /// applying the same commands in the same order reaches the same state and responses.
    /// Rejections are returned as [`RmResponse`] values and leave the state unchanged.
    pub fn apply(&mut self, cmd: &RmCommand) -> RmResponse {
        match cmd {
            RmCommand::V1(cmd) => self.apply_v1(cmd),
        }
    }

    fn apply_v1(&mut self, cmd: &CommandV1) -> RmResponse {
        match cmd {
            CommandV1::BeginEpoch { now_ms, .. } => {
                if self.epoch == 0 {
                    self.cluster_timestamp_ms = *now_ms;
                }
                self.epoch += 1;
                RmResponse::EpochBegun { epoch: self.epoch }
            }
            CommandV1::AllocateApplicationIds { count } => self.allocate_application_ids(*count),
            CommandV1::SetQueueConfigVersion { expected } => {
                if *expected == self.queue_config_version {
                    self.queue_config_version += 1;
                    RmResponse::QueueConfigVersionSet {
                        version: self.queue_config_version,
                    }
                } else {
                    RmResponse::QueueConfigVersionRejected {
                        expected: *expected,
                        actual: self.queue_config_version,
                    }
                }
            }
            CommandV1::SetNodeDecommissioned {
                node,
                decommissioned,
            } => {
                let changed = if *decommissioned {
                    self.decommissioned_nodes.insert(node.clone())
                } else {
                    self.decommissioned_nodes.remove(node)
                };
                RmResponse::NodeDecommissionedSet { changed }
            }
        }
    }

    fn allocate_application_ids(&mut self, count: u32) -> RmResponse {
        // Sequence numbers stop one short of i32::MAX so that `next` itself never overflows.
        let remaining = i32::MAX - self.next_application_seq;
        match i32::try_from(count) {
            Ok(n) if n <= remaining => {
                let first = self.next_application_seq;
                self.next_application_seq += n;
                RmResponse::ApplicationIdsAllocated { first, count }
            }
            _ => RmResponse::ApplicationIdsExhausted {
                requested: count,
                remaining: remaining.unsigned_abs(),
            },
        }
    }

    /// A SHA-256 digest of the whole state, equal on two replicas exactly when their states are
    /// equal, so that replicas can be compared without shipping the state.
    pub fn digest(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(self.epoch.to_be_bytes());
        hasher.update(self.next_application_seq.to_be_bytes());
        hasher.update(self.cluster_timestamp_ms.to_be_bytes());
        hasher.update(self.queue_config_version.to_be_bytes());
        // Length prefixes keep ["ab", "c"] and ["a", "bc"] apart.
        hasher.update((self.decommissioned_nodes.len() as u64).to_be_bytes());
        for node in &self.decommissioned_nodes {
            hasher.update((node.len() as u64).to_be_bytes());
            hasher.update(node.as_bytes());
        }
        hasher.finalize().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1(cmd: CommandV1) -> RmCommand {
        RmCommand::V1(cmd)
    }

    fn begin(now_ms: i64) -> RmCommand {
        v1(CommandV1::BeginEpoch {
            leader_rm_id: "rm1".to_owned(),
            now_ms,
        })
    }

    #[test]
    fn first_epoch_fixes_cluster_timestamp_and_later_epochs_only_bump() {
        let mut state = RmState::default();
        assert_eq!(
            state.apply(&begin(1_000)),
            RmResponse::EpochBegun { epoch: 1 }
        );
        assert_eq!(
            state.apply(&begin(2_000)),
            RmResponse::EpochBegun { epoch: 2 }
        );
        assert_eq!(state.epoch, 2);
        assert_eq!(state.cluster_timestamp_ms, 1_000);
    }

    #[test]
    fn application_ids_are_consecutive_ranges_from_one() {
        let mut state = RmState::default();
        let alloc = |count| v1(CommandV1::AllocateApplicationIds { count });
        assert_eq!(
            state.apply(&alloc(3)),
            RmResponse::ApplicationIdsAllocated { first: 1, count: 3 }
        );
        assert_eq!(
            state.apply(&alloc(2)),
            RmResponse::ApplicationIdsAllocated { first: 4, count: 2 }
        );
        assert_eq!(state.next_application_seq, 6);
    }

    #[test]
    fn application_ids_never_overflow() {
        let mut state = RmState {
            next_application_seq: i32::MAX - 2,
            ..RmState::default()
        };
        let before = state.clone();
        assert_eq!(
            state.apply(&v1(CommandV1::AllocateApplicationIds { count: 3 })),
            RmResponse::ApplicationIdsExhausted {
                requested: 3,
                remaining: 2
            }
        );
        assert_eq!(state, before);
        assert_eq!(
            state.apply(&v1(CommandV1::AllocateApplicationIds { count: u32::MAX })),
            RmResponse::ApplicationIdsExhausted {
                requested: u32::MAX,
                remaining: 2
            }
        );
    }

    #[test]
    fn queue_config_version_is_compare_and_bump() {
        let mut state = RmState::default();
        let set = |expected| v1(CommandV1::SetQueueConfigVersion { expected });
        assert_eq!(
            state.apply(&set(0)),
            RmResponse::QueueConfigVersionSet { version: 1 }
        );
        assert_eq!(
            state.apply(&set(0)),
            RmResponse::QueueConfigVersionRejected {
                expected: 0,
                actual: 1
            }
        );
        assert_eq!(state.queue_config_version, 1);
    }

    #[test]
    fn decommission_reports_whether_anything_changed() {
        let mut state = RmState::default();
        let set = |decommissioned| {
            v1(CommandV1::SetNodeDecommissioned {
                node: "nm1:8041".to_owned(),
                decommissioned,
            })
        };
        assert_eq!(
            state.apply(&set(true)),
            RmResponse::NodeDecommissionedSet { changed: true }
        );
        assert_eq!(
            state.apply(&set(true)),
            RmResponse::NodeDecommissionedSet { changed: false }
        );
        assert!(state.decommissioned_nodes.contains("nm1:8041"));
        assert_eq!(
            state.apply(&set(false)),
            RmResponse::NodeDecommissionedSet { changed: true }
        );
        assert!(state.decommissioned_nodes.is_empty());
    }

    #[test]
    fn same_commands_give_same_digest_and_different_state_differs() {
        let commands = [
            begin(5),
            v1(CommandV1::AllocateApplicationIds { count: 4 }),
            v1(CommandV1::SetNodeDecommissioned {
                node: "nm2:8041".to_owned(),
                decommissioned: true,
            }),
        ];
        let mut a = RmState::default();
        let mut b = RmState::default();
        for cmd in &commands {
            assert_eq!(a.apply(cmd), b.apply(cmd));
        }
        assert_eq!(a.digest(), b.digest());
        b.apply(&v1(CommandV1::SetQueueConfigVersion { expected: 0 }));
        assert_ne!(a.digest(), b.digest());
    }
}

//! The leader's token master-key roller.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio_util::sync::CancellationToken;
use yarn_security::{KeyAction, KeyRollingSchedule, MasterKey};

use super::raft_proposer::RaftProposer;
use crate::RmConfig;
use crate::state_machine::{
    CommandV1, MasterKeyChange, MasterKeyKind, MasterKeyPair, RmCommand, RmResponse, StateView,
    StoredMasterKey,
};
use yarn_security::now_ms;

/// The id of the first key of every kind. Ids only need to differ between a key and its
/// successor, which they do by construction.
const FIRST_KEY_ID: i32 = 1;

/// What the roller should propose for one kind, decided from the replicated keys and the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyPlan {
    /// The kind has no key yet.
    Initialize,
    /// Its schedule says a roll action is due.
    Roll(KeyAction),
}

/// Decides the next change of one kind's keys: pure, so the schedule is tested without Raft.
///
/// # Errors
///
/// The security crate's error when the stored keys are inconsistent with each other.
pub(crate) fn plan(
    keys: Option<&MasterKeyPair>,
    schedule: KeyRollingSchedule,
    now_ms: i64,
) -> Result<Option<KeyPlan>, yarn_security::Error> {
    let Some(pair) = keys else {
        return Ok(Some(KeyPlan::Initialize));
    };
    Ok(pair
        .roller(schedule)?
        .next_action(now_ms)
        .map(KeyPlan::Roll))
}

/// Rolls every kind's master key on its schedule by proposing [`CommandV1::ChangeMasterKey`].
///
/// Secrets are drawn here, on the leader, and travel in the command, so every replica stores the
/// same keys. A proposal that loses a race (a new leader proposed first) is rejected by the
/// state machine without effect.
pub(crate) struct MasterKeyService {
    /// Every Raft write of the service goes through it.
    pub(crate) proposer: RaftProposer,
    pub(crate) state: StateView,
    pub(crate) config: Arc<RmConfig>,
    pub(crate) check_interval: Duration,
    /// Draws the secrets; `None` for the operating system's generator.
    pub(crate) secrets: Option<StdRng>,
}

/// Where leaders draw the secrets of new master keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SecretSource {
    /// The operating system's cryptographically secure generator: what a replica does.
    #[default]
    OperatingSystem,
    /// A generator seeded with this value and the leadership's epoch: the deterministic
    /// simulation's, so that a seed replays its keys. Never for a real cluster, whose keys
    /// anyone knowing the seed would know.
    Seeded(u64),
}

impl SecretSource {
    /// The generator of the leadership of `epoch`; `None` for the operating system's.
    pub(crate) fn generator(self, epoch: u64) -> Option<StdRng> {
        match self {
            Self::OperatingSystem => None,
            Self::Seeded(seed) => Some(StdRng::seed_from_u64(seed ^ epoch)),
        }
    }
}

impl MasterKeyService {
    /// Runs until `token` is cancelled.
    pub(crate) async fn run(mut self, token: CancellationToken) {
        loop {
            for kind in MasterKeyKind::ALL {
                if token.is_cancelled() {
                    return;
                }
                self.step(kind).await;
            }
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(self.check_interval) => {}
            }
        }
    }

    async fn step(&mut self, kind: MasterKeyKind) {
        let now = now_ms();
        let keys = self
            .state
            .read(|state| state.master_keys.get(kind).cloned());
        let planned = self
            .config
            .key_rolling_schedule(kind)
            .and_then(|schedule| plan(keys.as_ref(), schedule, now));
        let change = match planned {
            Ok(None) => return,
            Ok(Some(KeyPlan::Initialize)) => MasterKeyChange::Initialize {
                key: self.generate(FIRST_KEY_ID, now),
            },
            Ok(Some(KeyPlan::Roll(KeyAction::CreateNext { key_id }))) => {
                MasterKeyChange::CreateNext {
                    key: self.generate(key_id, now),
                }
            }
            Ok(Some(KeyPlan::Roll(KeyAction::ActivateNext { key_id }))) => {
                MasterKeyChange::ActivateNext {
                    key_id,
                    now_ms: now,
                }
            }
            Err(err) => {
                tracing::error!(?kind, %err, "cannot plan the master key roll; not rolling");
                return;
            }
        };
        let command = RmCommand::V1(CommandV1::ChangeMasterKey { kind, change });
        match self.proposer.propose(command).await {
            Ok(RmResponse::MasterKeyChanged) => tracing::info!(?kind, "master key changed"),
            Ok(other) => tracing::info!(?kind, ?other, "master key change not applied"),
            Err(err) => tracing::warn!(?kind, %err, "cannot propose a master key change"),
        }
    }
}

impl MasterKeyService {
    fn generate(&mut self, key_id: i32, now_ms: i64) -> StoredMasterKey {
        let key = match &mut self.secrets {
            None => MasterKey::generate(key_id),
            Some(rng) => {
                let mut secret = [0_u8; MasterKey::LEN];
                rng.fill(&mut secret);
                MasterKey::new(key_id, secret)
            }
        };
        StoredMasterKey {
            key_id,
            secret: *key.bytes(),
            since_ms: now_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(next: bool) -> MasterKeyPair {
        let key = |key_id, since_ms| StoredMasterKey {
            key_id,
            secret: [0; MasterKey::LEN],
            since_ms,
        };
        MasterKeyPair {
            current: key(1, 1_000),
            next: next.then(|| key(2, 5_000)),
        }
    }

    #[test]
    fn missing_keys_are_initialized_then_rolled_on_schedule() {
        let schedule = KeyRollingSchedule::new(10_000, 2_000).unwrap();
        assert_eq!(plan(None, schedule, 0).unwrap(), Some(KeyPlan::Initialize));
        let current_only = pair(false);
        assert_eq!(plan(Some(&current_only), schedule, 10_999).unwrap(), None);
        assert_eq!(
            plan(Some(&current_only), schedule, 11_000).unwrap(),
            Some(KeyPlan::Roll(KeyAction::CreateNext { key_id: 2 }))
        );
        let with_next = pair(true);
        assert_eq!(plan(Some(&with_next), schedule, 6_999).unwrap(), None);
        assert_eq!(
            plan(Some(&with_next), schedule, 7_000).unwrap(),
            Some(KeyPlan::Roll(KeyAction::ActivateNext { key_id: 2 }))
        );
    }
}

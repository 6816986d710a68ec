//! [`PreemptionWaits`]: how long each chosen container has been waiting for its application to
//! give it up.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// What one round decides about the containers it chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitVerdicts<K> {
    /// Chosen for the first time: their ApplicationMasters are told, and their wait starts.
    pub to_announce: Vec<K>,
    /// Chosen again after waiting `max_wait_before_kill`: killed now, completing `PREEMPTED`.
    pub to_kill: Vec<K>,
}

impl<K> Default for WaitVerdicts<K> {
    fn default() -> Self {
        Self {
            to_announce: Vec::new(),
            to_kill: Vec::new(),
        }
    }
}

/// The containers rounds have chosen (by key `K`, a container id or the replicated state's key
/// for one), each with when it was first chosen, as Hadoop's policy keeps them.
///
/// Guarantees:
/// - a container is announced once, when first chosen, and killed only when chosen again at
///   least `max_wait_before_kill` after that; a kill is decided once, and the container is
///   forgotten with it;
/// - a container rounds stop choosing (its queue's balance came back, or it ended) keeps its
///   first time for two waits, so one chosen again soon after is killed on its first schedule
///   rather than waiting anew; after that it is forgotten;
/// - only what is passed in decides: the same calls give the same verdicts, and a copy of the
///   waits (a new leader's, from the replicated state) carries on where the old one stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound(serialize = "K: Serialize", deserialize = "K: Deserialize<'de> + Ord"))]
pub struct PreemptionWaits<K> {
    first_chosen_ms: BTreeMap<K, i64>,
    /// The containers the latest round chose that still wait.
    latest: BTreeSet<K>,
}

impl<K> Default for PreemptionWaits<K> {
    fn default() -> Self {
        Self {
            first_chosen_ms: BTreeMap::new(),
            latest: BTreeSet::new(),
        }
    }
}

impl<K: Ord + Copy> PreemptionWaits<K> {
    /// Applies one round that chose `chosen` at `now_ms` (milliseconds since the Unix epoch).
    /// A wait below one millisecond counts as one, so a container is never announced and
    /// killed in the same round, nor forgotten before it could be killed.
    pub fn round(
        &mut self,
        chosen: impl IntoIterator<Item = K>,
        now_ms: i64,
        max_wait_before_kill_ms: i64,
    ) -> WaitVerdicts<K> {
        let max_wait_before_kill_ms = max_wait_before_kill_ms.max(1);
        let mut verdicts = WaitVerdicts::default();
        let mut latest = BTreeSet::new();
        for container in chosen {
            match self.first_chosen_ms.get(&container) {
                None => {
                    self.first_chosen_ms.insert(container, now_ms);
                    verdicts.to_announce.push(container);
                    latest.insert(container);
                }
                Some(&first) if first.saturating_add(max_wait_before_kill_ms) <= now_ms => {
                    self.first_chosen_ms.remove(&container);
                    verdicts.to_kill.push(container);
                    latest.remove(&container);
                }
                Some(_) => {
                    latest.insert(container);
                }
            }
        }
        self.latest = latest;
        let forget_before = now_ms.saturating_sub(max_wait_before_kill_ms.saturating_mul(2));
        self.first_chosen_ms
            .retain(|_, &mut first| first >= forget_before);
        verdicts
    }

    /// Forgets `container`, which ended.
    pub fn forget(&mut self, container: &K) {
        self.first_chosen_ms.remove(container);
        self.latest.remove(container);
    }

    /// The containers the latest round chose that still wait, with when each was first chosen,
    /// in id order: what the ApplicationMasters' preemption messages list. A container rounds
    /// stopped choosing is no longer among them, though its first time is kept.
    pub fn announced(&self) -> impl Iterator<Item = (K, i64)> + '_ {
        self.latest
            .iter()
            .filter_map(|container| Some((*container, *self.first_chosen_ms.get(container)?)))
    }

    /// Every container waiting, with when each was first chosen, in id order, those rounds
    /// stopped choosing included.
    pub fn waiting(&self) -> impl Iterator<Item = (K, i64)> + '_ {
        self.first_chosen_ms
            .iter()
            .map(|(&container, &first)| (container, first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Container keys 1 to `count`.
    fn containers(count: u64) -> Vec<u64> {
        (1..=count).collect()
    }

    #[test]
    fn chosen_containers_are_announced_once_and_killed_after_the_wait() {
        // Hadoop's testExpireKill: ten containers chosen every round, a wait of 10 s.
        let chosen = containers(10);
        let mut waits = PreemptionWaits::<u64>::default();
        let first = waits.round(chosen.clone(), 0, 10_000);
        assert_eq!((first.to_announce.len(), first.to_kill.len()), (10, 0));
        let meanwhile = waits.round(chosen.clone(), 5_000, 10_000);
        assert_eq!(
            meanwhile,
            WaitVerdicts::default(),
            "announced already, not due"
        );
        assert_eq!(waits.announced().count(), 10, "still told");
        let due = waits.round(chosen.clone(), 10_000, 10_000);
        assert_eq!(due.to_kill, chosen, "due once the whole wait has passed");
        assert!(due.to_announce.is_empty());
        assert_eq!(waits.waiting().count(), 0, "forgotten with the kill");
        assert_eq!(waits.announced().count(), 0);
    }

    #[test]
    fn a_container_no_longer_chosen_keeps_its_wait_for_a_while_then_is_forgotten() {
        let chosen = containers(2);
        let mut waits = PreemptionWaits::<u64>::default();
        waits.round(chosen.clone(), 0, 10_000);
        // Not chosen for a round, then chosen again once due: killed at once.
        assert_eq!(waits.round([], 3_000, 10_000), WaitVerdicts::default());
        let again = waits.round([chosen[0]], 12_000, 10_000);
        assert_eq!(again.to_kill, vec![chosen[0]]);
        // The other is kept for two waits, then forgotten, and a new choice waits anew; no
        // longer chosen, it is no longer announced.
        assert_eq!(waits.waiting().count(), 1);
        assert_eq!(waits.announced().count(), 0);
        waits.round([], 20_000, 10_000);
        assert_eq!(waits.waiting().count(), 1, "kept for two waits");
        waits.round([], 20_001, 10_000);
        assert_eq!(waits.waiting().count(), 0, "forgotten after two waits");
        let anew = waits.round([chosen[1]], 21_000, 10_000);
        assert_eq!(anew.to_announce, vec![chosen[1]]);
    }

    #[test]
    fn a_wait_below_one_millisecond_still_separates_the_announcement_from_the_kill() {
        let chosen = containers(1);
        for wait in [0, -10_000] {
            let mut waits = PreemptionWaits::<u64>::default();
            let verdicts = waits.round([chosen[0], chosen[0]], 0, wait);
            assert_eq!(verdicts.to_announce, chosen, "wait {wait}");
            assert!(verdicts.to_kill.is_empty(), "wait {wait}");
            assert_eq!(
                waits.round(chosen.clone(), 1, wait).to_kill,
                chosen,
                "wait {wait}"
            );
        }
    }

    #[test]
    fn a_copy_of_the_waits_carries_on_where_the_original_stopped() {
        let chosen = containers(3);
        let mut waits = PreemptionWaits::<u64>::default();
        waits.round(chosen.clone(), 1_000, 15_000);
        waits.forget(&chosen[2]);
        let encoded = postcard::to_allocvec(&waits).expect("encodes");
        let mut successor: PreemptionWaits<u64> = postcard::from_bytes(&encoded).expect("decodes");
        assert_eq!(successor, waits);
        let verdicts = successor.round(chosen.clone(), 16_000, 15_000);
        assert_eq!(
            verdicts.to_kill,
            chosen[..2].to_vec(),
            "no wait starts again"
        );
        assert_eq!(
            verdicts.to_announce,
            vec![chosen[2]],
            "the ended one is new"
        );
    }
}

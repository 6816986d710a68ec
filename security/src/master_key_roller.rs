//! Master-key rolling as pure functions of `now`: the current and next keys of one token kind.

use crate::{Error, KeyRollingSchedule, MasterKey};

/// What the key roller wants done next.
///
/// The leader's shell asks [`MasterKeyRoller::next_action`] on each tick, turns the answer into a
/// replicated command (generating the key bytes for [`KeyAction::CreateNext`] itself), and every
/// replica then applies it with [`MasterKeyRoller::create_next`] or
/// [`MasterKeyRoller::activate_next`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyAction {
    /// Create a next key with this id: a rolling interval has passed since the current key became
    /// active and there is no next key yet.
    CreateNext {
        /// The id the new key must have: the current id plus one.
        key_id: i32,
    },
    /// Make the next key, which has this id, current: it has existed for the activation delay.
    ActivateNext {
        /// The id of the next key to activate.
        key_id: i32,
    },
}

/// A next key and when it was created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextMasterKey {
    /// The key, already valid for verification but not yet used to sign.
    pub key: MasterKey,
    /// Milliseconds since the Unix epoch at which the key was created.
    pub created_at_ms: i64,
}

/// The master keys of one token kind and their rolling, as plain data the Raft state machine can
/// store: the current key (signs and validates), an optional next key (validates only), and the
/// times that drive the schedule.
///
/// Everything is a pure function of its inputs: times arrive as arguments (milliseconds since the
/// Unix epoch) and key bytes come from the caller, so every replica applying the same commands
/// reaches the same state.
///
/// Key ids: each new key's id is the current id plus one, so ids increase by one per roll. The
/// addition wraps from `i32::MAX` to `i32::MIN` instead of overflowing; a key is only ever looked
/// up by equality among at most three neighbouring keys, so the wrap is harmless, and at one roll
/// a day it would take millions of years to reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MasterKeyRoller {
    schedule: KeyRollingSchedule,
    current: MasterKey,
    current_activated_at_ms: i64,
    next: Option<NextMasterKey>,
}

impl MasterKeyRoller {
    /// A roller whose first key, `initial`, became current at `now_ms`.
    pub fn new(schedule: KeyRollingSchedule, initial: MasterKey, now_ms: i64) -> Self {
        MasterKeyRoller {
            schedule,
            current: initial,
            current_activated_at_ms: now_ms,
            next: None,
        }
    }

    /// Rebuilds a roller from stored parts (as read back from a snapshot).
    ///
    /// # Errors
    /// [`Error::UnexpectedMasterKeyId`] when `next`'s id is not the current id plus one.
    pub fn restore(
        schedule: KeyRollingSchedule,
        current: MasterKey,
        current_activated_at_ms: i64,
        next: Option<NextMasterKey>,
    ) -> Result<Self, Error> {
        let roller = MasterKeyRoller::new(schedule, current, current_activated_at_ms);
        if let Some(next) = &next {
            roller.check_next_id(next.key.key_id())?;
        }
        Ok(MasterKeyRoller { next, ..roller })
    }

    /// The schedule this roller follows.
    pub fn schedule(&self) -> KeyRollingSchedule {
        self.schedule
    }

    /// The key that signs new tokens.
    pub fn current(&self) -> &MasterKey {
        &self.current
    }

    /// When the current key became active, in milliseconds since the Unix epoch.
    pub fn current_activated_at_ms(&self) -> i64 {
        self.current_activated_at_ms
    }

    /// The next key, if a roll has created one and it is not active yet.
    pub fn next(&self) -> Option<&NextMasterKey> {
        self.next.as_ref()
    }

    /// The id the next key created will have: the current id plus one, wrapping at `i32::MAX`.
    pub fn next_key_id(&self) -> i32 {
        self.current.key_id().wrapping_add(1)
    }

    /// What is due at `now_ms`, if anything:
    /// - without a next key, [`KeyAction::CreateNext`] once `now_ms` is at least one rolling
    ///   interval after the current key became active;
    /// - with a next key, [`KeyAction::ActivateNext`] once `now_ms` is at least one activation
    ///   delay after the next key was created.
    ///
    /// Asking does not change the roller, and asking again before the action is applied gives the
    /// same answer. A clock behind the stored times (say, a new leader with a slower clock) only
    /// postpones the action.
    pub fn next_action(&self, now_ms: i64) -> Option<KeyAction> {
        match &self.next {
            None => {
                let due = self
                    .current_activated_at_ms
                    .saturating_add(self.schedule.rolling_interval_ms());
                (now_ms >= due).then(|| KeyAction::CreateNext {
                    key_id: self.next_key_id(),
                })
            }
            Some(next) => {
                let due = next
                    .created_at_ms
                    .saturating_add(self.schedule.activation_delay_ms());
                (now_ms >= due).then(|| KeyAction::ActivateNext {
                    key_id: next.key.key_id(),
                })
            }
        }
    }

    /// Stores `key` as the next key, created at `now_ms`. It validates tokens from now on but
    /// signs only once activated.
    ///
    /// # Errors
    /// Leaves the roller unchanged and returns [`Error::NextMasterKeyExists`] when a next key is
    /// already pending (a duplicate or stale command), or [`Error::UnexpectedMasterKeyId`] when
    /// `key`'s id is not [`MasterKeyRoller::next_key_id`].
    pub fn create_next(&mut self, key: MasterKey, now_ms: i64) -> Result<(), Error> {
        if let Some(existing) = &self.next {
            return Err(Error::NextMasterKeyExists {
                existing: existing.key.key_id(),
                proposed: key.key_id(),
            });
        }
        self.check_next_id(key.key_id())?;
        self.next = Some(NextMasterKey {
            key,
            created_at_ms: now_ms,
        });
        Ok(())
    }

    /// Makes the next key, whose id must be `key_id`, current as of `now_ms`; the old current key
    /// is dropped and no longer validates here (a NodeManager keeps it as its previous key).
    ///
    /// # Errors
    /// Leaves the roller unchanged and returns [`Error::NoNextMasterKey`] when no next key is
    /// pending, or [`Error::UnexpectedMasterKeyId`] when the pending key has another id (a stale
    /// command).
    pub fn activate_next(&mut self, key_id: i32, now_ms: i64) -> Result<(), Error> {
        let next = self.next.take().ok_or(Error::NoNextMasterKey {
            current: self.current.key_id(),
        })?;
        if next.key.key_id() != key_id {
            let expected = next.key.key_id();
            self.next = Some(next);
            return Err(Error::UnexpectedMasterKeyId {
                expected,
                found: key_id,
            });
        }
        self.current = next.key;
        self.current_activated_at_ms = now_ms;
        Ok(())
    }

    fn check_next_id(&self, found: i32) -> Result<(), Error> {
        let expected = self.next_key_id();
        if found != expected {
            return Err(Error::UnexpectedMasterKeyId { expected, found });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTERVAL: i64 = 10_000;
    const DELAY: i64 = 1_500;
    const T0: i64 = 1_700_000_000_000;

    fn key(key_id: i32) -> MasterKey {
        MasterKey::new(key_id, [key_id.to_le_bytes()[0]; MasterKey::LEN])
    }

    fn roller(initial_id: i32) -> MasterKeyRoller {
        let schedule = KeyRollingSchedule::new(INTERVAL, DELAY).unwrap();
        MasterKeyRoller::new(schedule, key(initial_id), T0)
    }

    /// Applies whatever `next_action` asks for at `now`, the way the leader's shell would.
    fn must_step(roller: &mut MasterKeyRoller, now: i64) -> Option<KeyAction> {
        let action = roller.next_action(now);
        match action {
            Some(KeyAction::CreateNext { key_id }) => roller.create_next(key(key_id), now).unwrap(),
            Some(KeyAction::ActivateNext { key_id }) => roller.activate_next(key_id, now).unwrap(),
            None => {}
        }
        action
    }

    #[test]
    fn create_next_is_due_exactly_when_the_interval_has_passed() {
        let roller = roller(3);
        assert_eq!(roller.next_action(T0), None);
        assert_eq!(roller.next_action(T0 + INTERVAL - 1), None);
        assert_eq!(
            roller.next_action(T0 + INTERVAL),
            Some(KeyAction::CreateNext { key_id: 4 })
        );
        // Asking is side-effect free: a late tick asks for the same key.
        assert_eq!(
            roller.next_action(T0 + 5 * INTERVAL),
            Some(KeyAction::CreateNext { key_id: 4 })
        );
    }

    #[test]
    fn activate_next_is_due_exactly_when_the_delay_has_passed() {
        let mut roller = roller(3);
        let created_at = T0 + INTERVAL + 42;
        roller.create_next(key(4), created_at).unwrap();
        assert_eq!(roller.next().unwrap().created_at_ms, created_at);
        assert_eq!(roller.next_action(created_at), None);
        assert_eq!(roller.next_action(created_at + DELAY - 1), None);
        assert_eq!(
            roller.next_action(created_at + DELAY),
            Some(KeyAction::ActivateNext { key_id: 4 })
        );

        roller.activate_next(4, created_at + DELAY).unwrap();
        assert_eq!(roller.current(), &key(4));
        assert_eq!(roller.current_activated_at_ms(), created_at + DELAY);
        assert_eq!(roller.next(), None);
        // The next interval counts from the activation.
        assert_eq!(roller.next_action(created_at + DELAY + INTERVAL - 1), None);
        assert_eq!(
            roller.next_action(created_at + DELAY + INTERVAL),
            Some(KeyAction::CreateNext { key_id: 5 })
        );
    }

    #[test]
    fn ticking_through_several_rolls_increases_ids_on_schedule() {
        let mut roller = roller(100);
        let mut emitted = Vec::new();
        let tick = 500;
        let mut now = T0;
        while now <= T0 + 3 * (INTERVAL + DELAY) {
            if let Some(action) = must_step(&mut roller, now) {
                emitted.push((now - T0, action));
            }
            now += tick;
        }
        assert_eq!(
            emitted,
            vec![
                (INTERVAL, KeyAction::CreateNext { key_id: 101 }),
                (INTERVAL + DELAY, KeyAction::ActivateNext { key_id: 101 }),
                (2 * INTERVAL + DELAY, KeyAction::CreateNext { key_id: 102 }),
                (
                    2 * (INTERVAL + DELAY),
                    KeyAction::ActivateNext { key_id: 102 }
                ),
                (
                    3 * INTERVAL + 2 * DELAY,
                    KeyAction::CreateNext { key_id: 103 }
                ),
                (
                    3 * (INTERVAL + DELAY),
                    KeyAction::ActivateNext { key_id: 103 }
                ),
            ]
        );
        assert_eq!(roller.current().key_id(), 103);
    }

    #[test]
    fn key_ids_wrap_at_i32_max_without_overflow() {
        let mut roller = roller(i32::MAX);
        assert_eq!(roller.next_key_id(), i32::MIN);
        must_step(&mut roller, T0 + INTERVAL);
        must_step(&mut roller, T0 + INTERVAL + DELAY);
        assert_eq!(roller.current().key_id(), i32::MIN);
        assert_eq!(roller.next_key_id(), i32::MIN + 1);
    }

    #[test]
    fn a_clock_behind_the_stored_times_only_postpones() {
        let roller = roller(1);
        assert_eq!(roller.next_action(T0 - 1_000_000), None);
        assert_eq!(roller.next_action(i64::MIN), None);
    }

    #[test]
    fn create_next_refuses_a_second_next_key_and_wrong_ids() {
        let mut roller = roller(3);
        let err = roller.create_next(key(9), T0).unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnexpectedMasterKeyId {
                    expected: 4,
                    found: 9
                }
            ),
            "{err:?}"
        );
        assert_eq!(roller.next(), None);

        roller.create_next(key(4), T0).unwrap();
        let before = roller.clone();
        let err = roller.create_next(key(4), T0 + 1).unwrap_err();
        assert!(
            matches!(
                err,
                Error::NextMasterKeyExists {
                    existing: 4,
                    proposed: 4
                }
            ),
            "{err:?}"
        );
        assert_eq!(roller, before);
    }

    #[test]
    fn activate_next_refuses_without_a_next_key_or_with_a_stale_id() {
        let mut roller = roller(3);
        let err = roller.activate_next(4, T0).unwrap_err();
        assert!(
            matches!(err, Error::NoNextMasterKey { current: 3 }),
            "{err:?}"
        );

        roller.create_next(key(4), T0).unwrap();
        let before = roller.clone();
        let err = roller.activate_next(3, T0 + DELAY).unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnexpectedMasterKeyId {
                    expected: 4,
                    found: 3
                }
            ),
            "{err:?}"
        );
        assert_eq!(roller, before);
    }

    #[test]
    fn restore_round_trips_and_checks_the_next_id() {
        let mut original = roller(7);
        original.create_next(key(8), T0 + INTERVAL).unwrap();
        let restored = MasterKeyRoller::restore(
            original.schedule(),
            original.current().clone(),
            original.current_activated_at_ms(),
            original.next().cloned(),
        )
        .unwrap();
        assert_eq!(restored, original);

        let err = MasterKeyRoller::restore(
            original.schedule(),
            key(7),
            T0,
            Some(NextMasterKey {
                key: key(12),
                created_at_ms: T0,
            }),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnexpectedMasterKeyId {
                    expected: 8,
                    found: 12
                }
            ),
            "{err:?}"
        );
    }
}

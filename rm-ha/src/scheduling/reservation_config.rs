//! [`ReservationConfig`]: whether and how the leader runs the ReservationSystem, from the
//! `yarn-site.xml` keys `yarn.resourcemanager.reservation-system.*`.

use std::time::Duration;

use yarn_conf::{ConfError, Configuration, Key, keys};

/// The ReservationSystem as the leader runs it.
///
/// Invariant: `time_step` is positive. With the system off, only its switch and
/// `yarn.acl.reservation-enable` are read, as Hadoop reads nothing else then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservationConfig {
    /// `yarn.resourcemanager.reservation-system.enable`.
    pub enabled: bool,
    /// `...planfollower.time-step`: between two runs of the plan follower, and the step every
    /// reservation is aligned to.
    pub time_step: Duration,
    /// `...favor-early-allocation`: place reservations as early as allowed.
    pub favor_early: bool,
}

impl Default for ReservationConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            time_step: Duration::from_millis(1_000),
            favor_early: true,
        }
    }
}

impl ReservationConfig {
    /// Reads and checks the keys.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key, its value and where it was set:
    /// `yarn.acl.reservation-enable=true` (the per-queue reservation ACLs are not enforced),
    /// and, with the system enabled, a reservation-system or plan-follower class other than the
    /// CapacityScheduler's, or a time step that is not positive.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let acls = &keys::YARN_ACL_RESERVATION_ENABLE;
        if conf.get_bool(acls)? {
            return Err(conf.invalid_value(
                acls,
                true,
                "false: yarn-ha does not enforce the per-queue reservation ACLs yet",
            ));
        }
        if !conf.get_bool(&keys::RM_RESERVATION_SYSTEM_ENABLE)? {
            return Ok(Self::default());
        }
        for key in [
            &keys::RM_RESERVATION_SYSTEM_CLASS,
            &keys::RM_RESERVATION_SYSTEM_PLAN_FOLLOWER,
        ] {
            only_the_default(conf, key)?;
        }
        let step = &keys::RM_RESERVATION_SYSTEM_PLAN_FOLLOWER_TIME_STEP;
        let millis = conf.get_i64(step)?;
        let time_step = match u64::try_from(millis) {
            Ok(millis) if millis > 0 => Duration::from_millis(millis),
            _ => return Err(conf.invalid_value(step, millis, "a positive number of milliseconds")),
        };
        Ok(Self {
            enabled: true,
            time_step,
            favor_early: conf.get_bool(&keys::RM_RESERVATION_SYSTEM_FAVOR_EARLY_ALLOCATION)?,
        })
    }
}

/// Refuses any value of `key` but its default, the CapacityScheduler's class.
fn only_the_default(conf: &Configuration, key: &Key) -> Result<(), ConfError> {
    let value = conf.get_string(key)?;
    if value == key.default {
        return Ok(());
    }
    Err(conf.invalid_value(
        key,
        value,
        format!(
            "{}, the CapacityScheduler's and the only one yarn-ha has",
            key.default
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<ReservationConfig, ConfError> {
        let mut conf = Configuration::new();
        for (key, value) in pairs {
            conf.set(key, value);
        }
        ReservationConfig::from_conf(&conf)
    }

    fn refused_key(pairs: &[(&str, &str)]) -> String {
        match read(pairs).unwrap_err() {
            ConfError::InvalidValue { key, .. } => key,
            other => panic!("expected a named value, got {other}"),
        }
    }

    const ENABLE: &str = "yarn.resourcemanager.reservation-system.enable";

    #[test]
    fn off_by_default_and_every_key_that_would_promise_more_is_refused_by_name() {
        assert_eq!(read(&[]).unwrap(), ReservationConfig::default());
        assert_eq!(
            refused_key(&[("yarn.acl.reservation-enable", "true")]),
            "yarn.acl.reservation-enable"
        );
        assert_eq!(
            refused_key(&[
                (ENABLE, "true"),
                (
                    "yarn.resourcemanager.reservation-system.class",
                    "org.example.Reservations"
                ),
            ]),
            "yarn.resourcemanager.reservation-system.class"
        );
        assert_eq!(
            refused_key(&[
                (ENABLE, "true"),
                (
                    "yarn.resourcemanager.reservation-system.planfollower.time-step",
                    "0"
                ),
            ]),
            "yarn.resourcemanager.reservation-system.planfollower.time-step"
        );
        assert_eq!(
            read(&[
                (ENABLE, "true"),
                (
                    "yarn.resourcemanager.reservation-system.favor-early-allocation",
                    "false"
                ),
            ])
            .unwrap(),
            ReservationConfig {
                enabled: true,
                time_step: Duration::from_millis(1_000),
                favor_early: false,
            }
        );
    }
}

//! [`ApplicationLifetime`]: how long a queue lets its applications live, from
//! `maximum-application-lifetime` and `default-application-lifetime`.

use serde::{Deserialize, Serialize};

use crate::SchedulerError;

/// A queue's application lifetimes, resolved exactly as Hadoop's CapacityScheduler resolves
/// them. An application's lifetime counts from its submission; the ResourceManager kills it
/// when the lifetime is over.
///
/// Configured values are seconds: below 0 (Hadoop's -1, the default) means unset; a maximum of 0
/// means none, a default of 0 the maximum.
/// An unset maximum is the parent's. An unset default is the parent's when some ancestor sets
/// one (never above this queue's maximum), otherwise the maximum. As in Hadoop, a default
/// applies only under a maximum: without one an application lives as long as it asks, and
/// forever when it asks for nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplicationLifetime {
    /// Hadoop's resolved `maxApplicationLifetime`: 0 or below for none.
    maximum: i64,
    /// Hadoop's resolved `defaultApplicationLifetime`, which children inherit.
    default: i64,
    /// Whether this queue or an ancestor sets `default-application-lifetime`.
    default_configured: bool,
}

impl Default for ApplicationLifetime {
    /// No maximum and no default, as for a configuration that sets neither key.
    fn default() -> Self {
        Self {
            maximum: -1,
            default: -1,
            default_configured: false,
        }
    }
}

impl ApplicationLifetime {
    /// Resolves the lifetimes of the queue at `path` from its configured values (`None` when
    /// the key is not set) and its parent's resolved ones (`None` for `root`).
    ///
    /// # Errors
    ///
    /// [`SchedulerError::DefaultLifetimeAboveMaximum`] when a queue below `root` sets a
    /// default above its maximum.
    pub(crate) fn resolve(
        path: &str,
        parent: Option<&Self>,
        configured_maximum: Option<i64>,
        configured_default: Option<i64>,
    ) -> Result<Self, SchedulerError> {
        let own_maximum = configured_maximum.unwrap_or(-1);
        let own_default = configured_default.unwrap_or(-1);
        let Some(parent) = parent else {
            return Ok(Self {
                maximum: own_maximum,
                default: own_default,
                default_configured: own_default >= 0,
            });
        };
        let maximum = if own_maximum >= 0 {
            own_maximum
        } else {
            parent.maximum
        };
        let default_configured = own_default >= 0 || parent.default_configured;
        let mut default = match own_default {
            secs if secs >= 0 => secs,
            _ if parent.default_configured => parent.default.min(maximum),
            _ => maximum,
        };
        if maximum > 0 && default > maximum {
            return Err(SchedulerError::DefaultLifetimeAboveMaximum {
                queue: path.to_owned(),
                default_secs: default.unsigned_abs(),
                maximum_secs: maximum.unsigned_abs(),
            });
        }
        if default <= 0 {
            default = maximum;
        }
        Ok(Self {
            maximum,
            default,
            default_configured,
        })
    }

    /// The longest lifetime an application of the queue may have; `None` for no limit.
    pub fn maximum_secs(&self) -> Option<u64> {
        u64::try_from(self.maximum).ok().filter(|&secs| secs > 0)
    }

    /// The lifetime an application that asks for none gets; `None` for unlimited, which is
    /// always the case without a maximum.
    pub fn default_secs(&self) -> Option<u64> {
        self.maximum_secs()?;
        u64::try_from(self.default).ok().filter(|&secs| secs > 0)
    }

    /// Whether this queue or an ancestor sets a default that, for want of a maximum, applies
    /// to no application of this queue.
    pub(crate) fn default_without_maximum(&self) -> bool {
        self.default_configured && self.maximum_secs().is_none()
    }

    /// The lifetime an application of the queue gets when it asks for `requested` seconds
    /// (`None` when it asks for none): its own capped by the maximum, or the default when it
    /// asks for none; `None` when it runs without a lifetime (Hadoop's
    /// `checkAndGetApplicationLifetime`).
    pub fn granted(&self, requested: Option<u64>) -> Option<u64> {
        match (requested, self.maximum_secs()) {
            (requested, None) => requested,
            (None, Some(_)) => self.default_secs(),
            (Some(requested), Some(maximum)) => Some(requested.min(maximum)),
        }
    }

    /// The latest deadline, in milliseconds since the Unix epoch, an application submitted at
    /// `submit_time_ms` may be given: its submission plus the maximum; `None` without one.
    pub fn latest_deadline_ms(&self, submit_time_ms: i64) -> Option<i64> {
        self.maximum_secs()
            .map(|secs| deadline_ms(submit_time_ms, secs))
    }
}

/// When a lifetime of `secs` seconds from `submit_time_ms` ends, saturating far in the future.
pub fn deadline_ms(submit_time_ms: i64, secs: u64) -> i64 {
    let lifetime_ms = i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX);
    submit_time_ms.saturating_add(lifetime_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(
        parent: Option<&ApplicationLifetime>,
        max: i64,
        default: i64,
    ) -> ApplicationLifetime {
        ApplicationLifetime::resolve("root.a", parent, Some(max), Some(default)).unwrap()
    }

    fn in_force(lifetime: ApplicationLifetime) -> (Option<u64>, Option<u64>) {
        (lifetime.maximum_secs(), lifetime.default_secs())
    }

    #[test]
    fn an_unset_maximum_is_the_parents_and_zero_means_none() {
        let root = resolve(None, 3600, -1);
        let child = resolve(Some(&root), -1, -1);
        assert_eq!(in_force(child), (Some(3600), Some(3600)));
        assert_eq!(
            ApplicationLifetime::resolve("root.a", Some(&root), None, None).unwrap(),
            child
        );
        assert_eq!(in_force(resolve(Some(&root), 0, -1)), (None, None));
        assert_eq!(in_force(resolve(Some(&root), 60, -1)), (Some(60), Some(60)));
        assert_eq!(in_force(ApplicationLifetime::default()), (None, None));
    }

    #[test]
    fn an_inherited_default_never_exceeds_the_queues_maximum() {
        let root = resolve(None, 3600, 600);
        assert_eq!(
            in_force(resolve(Some(&root), -1, -1)),
            (Some(3600), Some(600))
        );
        assert_eq!(
            in_force(resolve(Some(&root), 300, -1)),
            (Some(300), Some(300))
        );
        assert_eq!(
            in_force(resolve(Some(&root), -1, 60)),
            (Some(3600), Some(60))
        );
        // A default of 0 stands for the maximum.
        assert_eq!(
            in_force(resolve(Some(&root), -1, 0)),
            (Some(3600), Some(3600))
        );
        let parent = resolve(Some(&root), -1, 120);
        assert_eq!(
            in_force(resolve(Some(&parent), -1, -1)),
            (Some(3600), Some(120))
        );
    }

    #[test]
    fn a_default_applies_only_under_a_maximum() {
        let root = resolve(None, -1, 600);
        let leaf = resolve(Some(&root), -1, -1);
        assert_eq!(in_force(leaf), (None, None));
        assert!(leaf.default_without_maximum());
        assert_eq!(leaf.granted(None), None);
        assert!(!resolve(Some(&root), 900, -1).default_without_maximum());
    }

    #[test]
    fn a_default_above_the_maximum_is_refused_below_root() {
        let root = resolve(None, -1, -1);
        let err =
            ApplicationLifetime::resolve("root.a", Some(&root), Some(60), Some(120)).unwrap_err();
        assert!(
            matches!(
                &err,
                SchedulerError::DefaultLifetimeAboveMaximum { queue, default_secs: 120, maximum_secs: 60 }
                    if queue == "root.a"
            ),
            "{err:?}"
        );
        assert!(ApplicationLifetime::resolve("root", None, Some(60), Some(120)).is_ok());
        // Without a maximum any default is accepted: it applies to nothing.
        assert!(ApplicationLifetime::resolve("root.a", Some(&root), Some(0), Some(120)).is_ok());
    }

    #[test]
    fn an_application_gets_its_own_lifetime_capped_or_the_default() {
        let root = resolve(None, -1, -1);
        let capped = resolve(Some(&root), 100, 50);
        assert_eq!(capped.granted(None), Some(50));
        assert_eq!(capped.granted(Some(30)), Some(30));
        assert_eq!(capped.granted(Some(300)), Some(100));
        let open = resolve(Some(&root), -1, -1);
        assert_eq!(open.granted(None), None);
        assert_eq!(open.granted(Some(300)), Some(300));
    }

    #[test]
    fn deadlines_count_from_submission_and_saturate() {
        assert_eq!(deadline_ms(1_000, 60), 61_000);
        assert_eq!(deadline_ms(1_000, u64::MAX), i64::MAX);
        let root = resolve(None, 10, -1);
        assert_eq!(root.latest_deadline_ms(5), Some(10_005));
        assert_eq!(ApplicationLifetime::default().latest_deadline_ms(5), None);
    }
}

//! [`ReservationQueueConf`]: how a reservable queue runs its plan, from the queue's keys in
//! `capacity-scheduler.xml`.

use serde::{Deserialize, Serialize};

use crate::error::SchedulerError;
use crate::property_reader::{PropertyReader, invalid};
use crate::queue_property::QueueProperty;

use super::reservation_definition::MAX_HORIZON_MS;
use super::sharing_policy::SharingPolicy;

/// The per-queue reservation keys (`yarn.scheduler.capacity.<queue-path>.<suffix>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReservationProperty {
    Reservable,
    Agent,
    Planner,
    Policy,
    Window,
    AverageCapacity,
    InstantaneousMaxCapacity,
    EnforcementWindow,
    ShowReservationsAsQueues,
    MoveOnExpiry,
}

impl ReservationProperty {
    pub(crate) const fn suffix(self) -> &'static str {
        match self {
            Self::Reservable => "reservable",
            Self::Agent => "reservation-agent",
            Self::Planner => "reservation-planner",
            Self::Policy => "reservation-policy",
            Self::Window => "reservation-window",
            Self::AverageCapacity => "average-capacity",
            Self::InstantaneousMaxCapacity => "instantaneous-max-capacity",
            Self::EnforcementWindow => "reservation-enforcement-window",
            Self::ShowReservationsAsQueues => "show-reservations-as-queues",
            Self::MoveOnExpiry => "reservation-move-on-expiry",
        }
    }

    fn key(self, path: &str) -> String {
        QueueProperty::Reservation(self).key(path)
    }
}

const POSITIVE_MS: &str = "a positive number of milliseconds, at most ten years";

const PACKAGE: &str = "org.apache.hadoop.yarn.server.resourcemanager.reservation";

/// The agents whose placements the greedy agent gives: Hadoop's default
/// (`AlignedPlannerWithGreedy`, whose greedy fallback this is) and its greedy agents.
const GREEDY_AGENTS: [&str; 3] = [
    "planning.AlignedPlannerWithGreedy",
    "planning.GreedyReservationAgent",
    "GreedyReservationAgent",
];

/// How a reservable queue runs its plan.
///
/// Guarantees: read only from a queue with `reservable=true`, which must be a leaf of the
/// configured tree (its reservations' queues are created under it); a class other than the
/// ones yarn-ha implements is refused by name rather than replaced.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReservationQueueConf {
    /// `reservation-window` (one day): the window the average limit is kept over, in ms.
    pub window_ms: i64,
    /// `average-capacity` (100): percent of the plan one user may hold on average.
    pub average_capacity_percent: f64,
    /// `instantaneous-max-capacity` (100): percent of the plan one user may hold at once.
    pub instantaneous_max_capacity_percent: f64,
    /// `reservation-policy` is `NoOverCommitPolicy`: no per-user limit, only the plan's
    /// capacity.
    pub no_over_commit_only: bool,
    /// `reservation-enforcement-window` (one hour), in ms.
    pub enforcement_window_ms: i64,
    /// `show-reservations-as-queues` (false).
    pub show_reservations_as_queues: bool,
    /// `reservation-move-on-expiry` (true): the applications of an expired reservation move to
    /// the queue's default reservation queue; otherwise they are killed.
    pub move_on_expiry: bool,
}

impl ReservationQueueConf {
    /// The sharing policy users' reservations in this queue keep.
    pub fn sharing_policy(&self) -> SharingPolicy {
        if self.no_over_commit_only {
            return SharingPolicy {
                instantaneous_max: 1.0,
                average: 1.0,
                window_ms: self.window_ms,
            };
        }
        SharingPolicy {
            instantaneous_max: self.instantaneous_max_capacity_percent / 100.0,
            average: self.average_capacity_percent / 100.0,
            window_ms: self.window_ms,
        }
    }

    /// Reads the reservation keys of the queue at `path`: `None` unless it is `reservable`.
    pub(crate) fn read(
        reader: &PropertyReader<'_>,
        path: &str,
        is_leaf: bool,
    ) -> Result<Option<Self>, SchedulerError> {
        let flag = |property: ReservationProperty, default: bool| {
            let key = property.key(path);
            match reader.get(&key) {
                Some(value) if value.eq_ignore_ascii_case("true") => Ok(true),
                Some(value) if value.eq_ignore_ascii_case("false") => Ok(false),
                Some(value) => Err(invalid(&key, value, "true or false")),
                None => Ok(default),
            }
        };
        let millis = |property: ReservationProperty, default: i64| {
            let key = property.key(path);
            match reader.parse::<i64>(&key, POSITIVE_MS)? {
                None => Ok(default),
                Some(ms) if ms > 0 && ms <= MAX_HORIZON_MS => Ok(ms),
                Some(_) => Err(invalid(
                    &key,
                    reader.get(&key).unwrap_or_default(),
                    POSITIVE_MS,
                )),
            }
        };
        let percent = |property: ReservationProperty| {
            reader
                .float_in(&property.key(path), "a percentage from 0 to 100", |v| {
                    (0.0..=100.0).contains(&v)
                })
                .map(|value| value.unwrap_or(100.0))
        };
        let class = |property: ReservationProperty, accepted: &[&'static str]| {
            let key = property.key(path);
            match reader.get(&key) {
                None => Ok(accepted[0]),
                Some(value) => accepted
                    .iter()
                    .copied()
                    .find(|short| value == format!("{PACKAGE}.{short}"))
                    .ok_or_else(|| SchedulerError::UnsupportedReservationClass {
                        key,
                        value: value.to_owned(),
                    }),
            }
        };
        // Every key is checked, reservable or not, so a typo never waits for the day the queue
        // becomes reservable.
        let reservable = flag(ReservationProperty::Reservable, false)?;
        class(ReservationProperty::Agent, &GREEDY_AGENTS)?;
        class(
            ReservationProperty::Planner,
            &["planning.SimpleCapacityReplanner"],
        )?;
        let policy = class(
            ReservationProperty::Policy,
            &["CapacityOverTimePolicy", "NoOverCommitPolicy"],
        )?;
        let conf = Self {
            window_ms: millis(ReservationProperty::Window, 86_400_000)?,
            average_capacity_percent: percent(ReservationProperty::AverageCapacity)?,
            instantaneous_max_capacity_percent: percent(
                ReservationProperty::InstantaneousMaxCapacity,
            )?,
            no_over_commit_only: policy == "NoOverCommitPolicy",
            enforcement_window_ms: millis(ReservationProperty::EnforcementWindow, 3_600_000)?,
            show_reservations_as_queues: flag(
                ReservationProperty::ShowReservationsAsQueues,
                false,
            )?,
            move_on_expiry: flag(ReservationProperty::MoveOnExpiry, true)?,
        };
        if reservable && !is_leaf {
            return Err(SchedulerError::ReservableParent {
                queue: path.to_owned(),
                key: ReservationProperty::Reservable.key(path),
            });
        }
        Ok(reservable.then_some(conf))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::{CapacitySchedulerConfiguration, SchedulerSettings};

    fn build(pairs: &[(&str, &str)]) -> Result<CapacitySchedulerConfiguration, String> {
        let mut properties: BTreeMap<String, String> = [
            ("root.queues", "a,b"),
            ("root.a.capacity", "40"),
            ("root.b.capacity", "60"),
        ]
        .into_iter()
        .chain(pairs.iter().copied())
        .map(|(k, v)| (format!("yarn.scheduler.capacity.{k}"), v.to_owned()))
        .collect();
        properties.retain(|_, value| !value.is_empty());
        CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default())
            .map_err(|err| err.to_string())
    }

    #[test]
    fn a_reservable_leaf_reads_its_keys_in_hadoops_units() {
        let conf = build(&[
            ("root.a.reservable", "TRUE"),
            ("root.a.average-capacity", "25"),
            ("root.a.instantaneous-max-capacity", "50"),
            ("root.a.reservation-window", "3600000"),
            ("root.a.reservation-move-on-expiry", "false"),
        ])
        .unwrap();
        let reservation = conf.queue("root.a").unwrap().reservation.unwrap();
        let policy = reservation.sharing_policy();
        assert_eq!((policy.average, policy.instantaneous_max), (0.25, 0.5));
        assert_eq!(policy.window_ms, 3_600_000);
        assert!(!reservation.move_on_expiry);
        assert_eq!(conf.queue("root.b").unwrap().reservation, None);
        let defaults = build(&[("root.b.reservable", "true")]).unwrap();
        let policy = defaults
            .queue("root.b")
            .unwrap()
            .reservation
            .unwrap()
            .sharing_policy();
        assert_eq!((policy.average, policy.instantaneous_max), (1.0, 1.0));
        assert_eq!(policy.window_ms, 86_400_000);
    }

    #[test]
    fn bad_values_parents_and_other_classes_are_refused_by_key() {
        let refusal = build(&[("root.a.average-capacity", "0.5x")]).unwrap_err();
        assert!(refusal.contains("root.a.average-capacity"), "{refusal}");
        let refusal = build(&[("root.a.instantaneous-max-capacity", "150")]).unwrap_err();
        assert!(refusal.contains("0 to 100"), "{refusal}");
        let refusal = build(&[("root.a.reservation-window", "-1")]).unwrap_err();
        assert!(refusal.contains("reservation-window"), "{refusal}");
        let refusal = build(&[("root.reservable", "true")]).unwrap_err();
        assert!(refusal.contains("only a leaf queue"), "{refusal}");
        let refusal = build(&[("root.a.reservation-agent", "org.example.SmartAgent")]).unwrap_err();
        assert!(refusal.contains("root.a.reservation-agent"), "{refusal}");
        let no_over_commit = build(&[
            ("root.a.reservable", "true"),
            ("root.a.average-capacity", "10"),
            (
                "root.a.reservation-policy",
                "org.apache.hadoop.yarn.server.resourcemanager.reservation.NoOverCommitPolicy",
            ),
        ])
        .unwrap();
        let policy = no_over_commit
            .queue("root.a")
            .unwrap()
            .reservation
            .unwrap()
            .sharing_policy();
        assert_eq!(
            policy.average, 1.0,
            "no per-user limit under NoOverCommitPolicy"
        );
        let refusal = build(&[("root.c.reservable", "true")]).unwrap_err();
        assert!(
            refusal.contains("root.c"),
            "a queue not in the tree: {refusal}"
        );
    }
}

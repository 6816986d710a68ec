//! [`SharingPolicy`]: how much of a plan one user may reserve (Hadoop's
//! `CapacityOverTimePolicy`).

use crate::Resource;
use crate::ResourceCalculator;

use super::resource_timeline::{ResourceArea, ResourceTimeline};

/// The limits one user's reservations in a plan must keep: at no instant more than
/// `instantaneous_max` of the plan's capacity, and over any `window_ms` no more than
/// `average` of the capacity on average. Both are fractions of the capacity (1.0 = all of it);
/// the queue keys give them in percent, as Hadoop reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharingPolicy {
    /// `instantaneous-max-capacity`, as a fraction.
    pub instantaneous_max: f64,
    /// `average-capacity`, as a fraction.
    pub average: f64,
    /// `reservation-window`, in milliseconds.
    pub window_ms: i64,
}

/// A reservation that would take a user past a limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyRefusal {
    /// At `at_ms` the user would hold more than the instantaneous limit.
    #[error(
        "at {at_ms} the user's reservations in this queue would hold {held}, above the \
         instantaneous-max-capacity limit of {limit}"
    )]
    Instantaneous {
        /// When.
        at_ms: i64,
        /// What the user would hold then.
        held: Resource,
        /// The limit.
        limit: Resource,
    },
    /// Over the window starting at `from_ms`, the user would hold more than the average limit.
    #[error(
        "over the {window_ms} ms reservation-window from {from_ms}, the user's reservations in \
         this queue would average {held} per ms, above the average-capacity limit of {limit}"
    )]
    Average {
        /// Where the window starts.
        from_ms: i64,
        /// `reservation-window`.
        window_ms: i64,
        /// What the user would hold on average over it.
        held: Resource,
        /// The limit.
        limit: Resource,
    },
}

impl SharingPolicy {
    /// Checks that `user_total` (every reservation of one user in a plan of `capacity`,
    /// including a new or changed one spanning `[start_ms, end_ms)`) keeps both limits wherever
    /// the new one could make a difference. With the memory-only calculator only memory counts.
    ///
    /// # Errors
    ///
    /// The first limit broken, with when and by how much.
    pub fn check(
        &self,
        user_total: &ResourceTimeline,
        (start_ms, end_ms): (i64, i64),
        capacity: Resource,
        calculator: ResourceCalculator,
    ) -> Result<(), PolicyRefusal> {
        let over = |held: Resource, limit: Resource| !calculator.fits_in(held, limit);
        let instantaneous = capacity.multiply_and_round_down(self.instantaneous_max);
        let changes: Vec<(i64, Resource)> =
            user_total.steps_between_rev(start_ms, end_ms).collect();
        let from_start = std::iter::once((start_ms, user_total.at(start_ms)));
        for (at_ms, held) in from_start.chain(changes.into_iter().rev()) {
            if over(held, instantaneous) {
                return Err(PolicyRefusal::Instantaneous {
                    at_ms,
                    held,
                    limit: instantaneous,
                });
            }
        }

        let window = self.window_ms.max(1);
        let average_limit = capacity.multiply_and_round_down(self.average);
        let limit_area = ResourceArea::of(average_limit, window);
        // The area of a step function over a sliding window is largest with one of the
        // window's ends on a step; only windows that overlap the new reservation can change,
        // and their ends lie within a window of it.
        let mut starts: Vec<i64> = user_total
            .steps_between_rev(
                start_ms.saturating_sub(window).saturating_sub(1),
                end_ms.saturating_add(window).saturating_add(1),
            )
            .flat_map(|(t, _)| [t, t - window])
            .filter(|&from| from + window > start_ms && from < end_ms)
            .collect();
        starts.sort_unstable();
        starts.dedup();
        for from in starts {
            let area = user_total.area(from, from + window);
            let too_much = area.memory_mb_ms > limit_area.memory_mb_ms
                || (calculator == ResourceCalculator::DominantResource
                    && area.vcore_ms > limit_area.vcore_ms);
            if too_much {
                return Err(PolicyRefusal::Average {
                    from_ms: from,
                    window_ms: window,
                    held: average_over(area, window),
                    limit: average_limit,
                });
            }
        }
        Ok(())
    }
}

/// What holding `area` evenly over `window_ms` amounts to at each instant.
fn average_over(area: ResourceArea, window_ms: i64) -> Resource {
    let window = u128::try_from(window_ms.max(1)).unwrap_or(1);
    Resource::new(
        u64::try_from(area.memory_mb_ms / window).unwrap_or(u64::MAX),
        u32::try_from(area.vcore_ms / window).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gb(memory_gb: u64) -> Resource {
        Resource::new(memory_gb * 1024, u32::try_from(memory_gb).unwrap())
    }

    const POLICY: SharingPolicy = SharingPolicy {
        instantaneous_max: 0.5,
        average: 0.25,
        window_ms: 10_000,
    };

    fn check(user_total: &ResourceTimeline, span: (i64, i64)) -> Result<(), PolicyRefusal> {
        POLICY.check(user_total, span, gb(100), ResourceCalculator::Default)
    }

    #[test]
    fn within_both_limits_passes() {
        // 50 GiB for 5 s of a 10 s window: an average of 25 GiB, exactly the limit.
        let total = ResourceTimeline::of(0, 5_000, gb(50));
        assert_eq!(check(&total, (0, 5_000)), Ok(()));
    }

    #[test]
    fn above_the_instantaneous_limit_is_refused_with_the_instant() {
        let mut total = ResourceTimeline::of(0, 2_000, gb(30));
        total.add(1_000, 2_000, gb(21));
        assert_eq!(
            check(&total, (1_000, 2_000)),
            Err(PolicyRefusal::Instantaneous {
                at_ms: 1_000,
                held: gb(51),
                limit: gb(50),
            })
        );
    }

    #[test]
    fn above_the_average_over_some_window_is_refused() {
        // Two reservations 8 s apart: alone each is fine, but one 10 s window holds both.
        let mut total = ResourceTimeline::of(0, 4_000, gb(50));
        assert_eq!(check(&total, (0, 4_000)), Ok(()));
        total.add(8_000, 11_000, gb(50));
        let refusal = check(&total, (8_000, 11_000)).unwrap_err();
        assert!(
            matches!(
                refusal,
                PolicyRefusal::Average {
                    window_ms: 10_000,
                    ..
                }
            ),
            "{refusal:?}"
        );
        // Further apart, no window of 10 s holds more than 20 GiB on average.
        let mut apart = ResourceTimeline::of(0, 4_000, gb(50));
        apart.add(14_000, 17_000, gb(50));
        assert_eq!(check(&apart, (14_000, 17_000)), Ok(()));
    }

    #[test]
    fn the_worst_window_may_end_on_a_step_after_the_new_reservation() {
        // 31 GiB held over [5 s, 12 s), then 20 GiB asked for over [0 s, 4 s): the window
        // [2 s, 12 s) holds 40 + 217 GiB·s, above the 250 allowed, and it starts on no step.
        let mut total = ResourceTimeline::of(5_000, 12_000, gb(31));
        total.add(0, 4_000, gb(20));
        let refusal = check(&total, (0, 4_000)).unwrap_err();
        assert!(
            matches!(refusal, PolicyRefusal::Average { from_ms: 2_000, .. }),
            "{refusal:?}"
        );
    }

    #[test]
    fn only_memory_counts_with_the_memory_only_calculator() {
        let total = ResourceTimeline::of(0, 1_000, Resource::new(1024, 90));
        assert_eq!(check(&total, (0, 1_000)), Ok(()));
        assert!(
            POLICY
                .check(
                    &total,
                    (0, 1_000),
                    gb(100),
                    ResourceCalculator::DominantResource
                )
                .is_err()
        );
    }
}

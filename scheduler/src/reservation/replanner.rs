//! [`replan`]: which reservations a plan drops when it no longer has the resources it promised
//! (Hadoop's `SimpleCapacityReplanner`).

use crate::{Resource, ResourceCalculator};

use super::resource_timeline::ResourceTimeline;

/// One reservation of a plan, as the replanner weighs it.
#[derive(Debug, Clone, Copy)]
pub struct ReplannedReservation<'a> {
    /// Its sequence number.
    pub sequence: i64,
    /// When it was accepted (or last updated): the latest go first.
    pub acceptance_ms: i64,
    /// What the plan holds for it over time.
    pub allocation: &'a ResourceTimeline,
}

/// The reservations to drop, by sequence number, so that from `now_ms` until
/// `enforcement_window_ms` later the plan never holds more than `capacity`, as `calculator`
/// compares within `cluster`: at the first instant it holds more, the reservation active then
/// that was accepted last goes, and so on until it fits; then the next such instant.
/// Reservations beyond the window are left to later steps, which may find the capacity back.
///
/// The sum of the plan is taken once; each drop takes its allocation back out of it, so the
/// work is one sweep plus one subtraction per drop.
pub fn replan(
    reservations: &[ReplannedReservation<'_>],
    capacity: Resource,
    cluster: Resource,
    calculator: ResourceCalculator,
    now_ms: i64,
    enforcement_window_ms: i64,
) -> Vec<i64> {
    let end_ms = now_ms.saturating_add(enforcement_window_ms.max(0));
    let mut total = ResourceTimeline::sum(reservations.iter().map(|r| r.allocation));
    let mut latest_first: Vec<&ReplannedReservation<'_>> = reservations.iter().collect();
    latest_first.sort_by_key(|r| std::cmp::Reverse((r.acceptance_ms, r.sequence)));
    let mut dropped = Vec::new();
    loop {
        let over = total
            .pieces()
            .filter(|&(start, end, _)| end > now_ms && start < end_ms)
            .find(|&(_, _, held)| calculator.compare(cluster, held, capacity).is_gt())
            .map(|(start, _, _)| start.max(now_ms));
        let Some(t) = over else {
            return dropped;
        };
        let Some(index) = latest_first
            .iter()
            .position(|r| !r.allocation.at(t).is_zero())
        else {
            return dropped;
        };
        let victim = latest_first.remove(index);
        total.subtract_timeline(victim.allocation);
        dropped.push(victim.sequence);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1024;

    fn window(start: i64, end: i64, gib: u64) -> ResourceTimeline {
        ResourceTimeline::of(start, end, Resource::new(gib * GIB, 1))
    }

    fn dropped(
        allocations: &[(i64, &ResourceTimeline)],
        capacity_gib: u64,
        window_ms: i64,
    ) -> Vec<i64> {
        let reservations: Vec<ReplannedReservation<'_>> = allocations
            .iter()
            .enumerate()
            .map(|(i, &(acceptance_ms, allocation))| ReplannedReservation {
                sequence: i as i64 + 1,
                acceptance_ms,
                allocation,
            })
            .collect();
        replan(
            &reservations,
            Resource::new(capacity_gib * GIB, 100),
            Resource::new(100 * GIB, 100),
            ResourceCalculator::Default,
            0,
            window_ms,
        )
    }

    #[test]
    fn a_plan_that_fits_drops_nothing() {
        let (a, b) = (window(0, 10, 2), window(5, 15, 2));
        assert!(dropped(&[(1, &a), (2, &b)], 4, 100).is_empty());
    }

    #[test]
    fn the_latest_accepted_reservation_active_at_the_excess_goes_first() {
        let (a, b, c) = (window(0, 10, 2), window(0, 10, 2), window(20, 30, 4));
        // At 0, 4 GiB are held of 3: b (accepted at 9) goes, not a (5) nor c (12, not active
        // then); at 20 c alone holds 4 GiB of 3, within the window, and goes too.
        assert_eq!(dropped(&[(5, &a), (9, &b), (12, &c)], 3, 100), vec![2, 3]);
        assert!(dropped(&[(5, &a), (9, &b), (12, &c)], 4, 100).is_empty());
    }

    #[test]
    fn an_excess_beyond_the_enforcement_window_is_left_for_later() {
        let (a, b) = (window(50, 60, 2), window(50, 60, 2));
        assert!(dropped(&[(1, &a), (2, &b)], 3, 40).is_empty());
        assert_eq!(dropped(&[(1, &a), (2, &b)], 3, 51), vec![2]);
    }
}

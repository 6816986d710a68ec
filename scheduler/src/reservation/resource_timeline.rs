//! [`ResourceTimeline`]: resources over time as a step function (Hadoop's
//! `RLESparseResourceAllocation`).

use std::collections::BTreeMap;
use std::ops::Bound;

use serde::{Deserialize, Serialize};

use crate::Resource;

/// Resources that change only at given instants (milliseconds since the Unix epoch): the value
/// at `t` is the one set at the latest instant at or before `t`, and zero before the first.
///
/// Guarantees: the encoding is canonical (no instant repeats the value before it, and the last
/// value is zero), so two timelines holding the same function compare equal; every operation
/// saturates instead of wrapping, as [`Resource`] does.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTimeline {
    steps: BTreeMap<i64, Resource>,
}

/// Memory and vcores integrated over time: MiB·ms and vcore·ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ResourceArea {
    /// MiB × milliseconds.
    pub memory_mb_ms: u128,
    /// vcores × milliseconds.
    pub vcore_ms: u128,
}

impl ResourceTimeline {
    /// `resource` during `[start_ms, end_ms)`, zero elsewhere; empty when the interval is.
    pub fn of(start_ms: i64, end_ms: i64, resource: Resource) -> Self {
        let mut timeline = Self::default();
        timeline.add(start_ms, end_ms, resource);
        timeline
    }

    /// Whether the timeline is zero everywhere.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The first and last instants of a timeline that is not zero everywhere.
    pub fn span(&self) -> Option<(i64, i64)> {
        let (&first, _) = self.steps.first_key_value()?;
        let (&last, _) = self.steps.last_key_value()?;
        Some((first, last))
    }

    /// The value at `t_ms`.
    pub fn at(&self, t_ms: i64) -> Resource {
        self.steps
            .range(..=t_ms)
            .next_back()
            .map_or(Resource::ZERO, |(_, &value)| value)
    }

    /// The instants where the value changes, each with the value from then on.
    pub fn steps(&self) -> impl Iterator<Item = (i64, Resource)> + '_ {
        self.steps.iter().map(|(&t, &value)| (t, value))
    }

    /// The instants strictly between `after_ms` and `before_ms` where the value changes, each
    /// with the value from then on, latest first.
    pub fn steps_between_rev(
        &self,
        after_ms: i64,
        before_ms: i64,
    ) -> impl Iterator<Item = (i64, Resource)> + '_ {
        let range = (Bound::Excluded(after_ms), Bound::Excluded(before_ms));
        let range = if after_ms < before_ms {
            self.steps.range(range)
        } else {
            self.steps.range(0..0)
        };
        range.rev().map(|(&t, &value)| (t, value))
    }

    /// The latest instant at or before `t_ms` where the value changed.
    pub fn last_change_at_or_before(&self, t_ms: i64) -> Option<i64> {
        self.steps.range(..=t_ms).next_back().map(|(&t, _)| t)
    }

    /// Adds `resource` during `[start_ms, end_ms)`.
    pub fn add(&mut self, start_ms: i64, end_ms: i64, resource: Resource) {
        self.change(start_ms, end_ms, |value| value.saturating_add(resource));
    }

    /// Takes `resource` away during `[start_ms, end_ms)`, down to zero.
    pub fn subtract(&mut self, start_ms: i64, end_ms: i64, resource: Resource) {
        self.change(start_ms, end_ms, |value| value.saturating_sub(resource));
    }

    /// The sum of `timelines`, in one sweep over their steps (adding them one by one would
    /// rewrite the overlapping stretch of the sum each time).
    pub fn sum<'a>(timelines: impl IntoIterator<Item = &'a ResourceTimeline>) -> Self {
        // Each piece adds its value at its start and takes it back at its end.
        let mut deltas: Vec<(i64, i128, i64)> = Vec::new();
        for timeline in timelines {
            for (start, end, value) in timeline.pieces() {
                let (memory, vcores) = (i128::from(value.memory_mb), i64::from(value.vcores));
                deltas.push((start, memory, vcores));
                deltas.push((end, -memory, -vcores));
            }
        }
        deltas.sort_unstable_by_key(|&(t, _, _)| t);
        let mut sum = Self::default();
        let (mut memory, mut vcores) = (0i128, 0i64);
        let mut previous = Resource::ZERO;
        let mut index = 0;
        while index < deltas.len() {
            let t = deltas[index].0;
            while index < deltas.len() && deltas[index].0 == t {
                memory += deltas[index].1;
                vcores += deltas[index].2;
                index += 1;
            }
            let value = Resource::new(
                u64::try_from(memory).unwrap_or(u64::MAX),
                u32::try_from(vcores).unwrap_or(u32::MAX),
            );
            if value != previous {
                sum.steps.insert(t, value);
                previous = value;
            }
        }
        sum
    }

    /// Adds every step of `other`.
    pub fn add_timeline(&mut self, other: &ResourceTimeline) {
        for (start, end, value) in other.pieces() {
            self.add(start, end, value);
        }
    }

    /// Takes every step of `other` away.
    pub fn subtract_timeline(&mut self, other: &ResourceTimeline) {
        for (start, end, value) in other.pieces() {
            self.subtract(start, end, value);
        }
    }

    /// The non-zero pieces `[start, end)` with their values, in time order.
    pub fn pieces(&self) -> impl Iterator<Item = (i64, i64, Resource)> + '_ {
        let mut iter = self.steps.iter().peekable();
        std::iter::from_fn(move || {
            loop {
                let (&start, &value) = iter.next()?;
                let &(&end, _) = iter.peek()?;
                if !value.is_zero() {
                    return Some((start, end, value));
                }
            }
        })
    }

    /// The same timeline with time running backwards: `[start, end)` becomes `[-end, -start)`.
    /// Placing as late as possible in the mirror is placing as early as possible here.
    pub fn mirrored(&self) -> Self {
        let mut mirror = Self::default();
        for (start, end, value) in self.pieces() {
            mirror.add(-end, -start, value);
        }
        mirror
    }

    /// The largest value of each dimension during `[start_ms, end_ms)` (the two maxima may come
    /// from different instants); zero for an empty interval.
    pub fn max_over(&self, start_ms: i64, end_ms: i64) -> Resource {
        if start_ms >= end_ms {
            return Resource::ZERO;
        }
        self.steps
            .range(start_ms + 1..end_ms)
            .map(|(_, &value)| value)
            .fold(self.at(start_ms), Resource::component_max)
    }

    /// The area under the timeline during `[start_ms, end_ms)`.
    pub fn area(&self, start_ms: i64, end_ms: i64) -> ResourceArea {
        let mut area = ResourceArea::default();
        if start_ms >= end_ms {
            return area;
        }
        let mut t = start_ms;
        let mut value = self.at(start_ms);
        for (&next, &next_value) in self.steps.range(start_ms + 1..end_ms) {
            area.add(value, next - t);
            t = next;
            value = next_value;
        }
        area.add(value, end_ms - t);
        area
    }

    /// Applies `f` to the value during `[start_ms, end_ms)`, keeping the encoding canonical.
    fn change(&mut self, start_ms: i64, end_ms: i64, f: impl Fn(Resource) -> Resource) {
        if start_ms >= end_ms {
            return;
        }
        let after = self.at(end_ms);
        let before = self.at(start_ms);
        self.steps.insert(start_ms, before);
        self.steps.insert(end_ms, after);
        for (_, value) in self.steps.range_mut(start_ms..end_ms) {
            *value = f(*value);
        }
        self.canonicalize(start_ms, end_ms);
    }

    /// Drops the steps in `[start_ms, end_ms]` that repeat the value before them.
    fn canonicalize(&mut self, start_ms: i64, end_ms: i64) {
        let mut previous = self.at(start_ms - 1);
        let redundant: Vec<i64> = self
            .steps
            .range(start_ms..=end_ms)
            .filter_map(|(&t, &value)| {
                let repeats = value == previous;
                previous = value;
                repeats.then_some(t)
            })
            .collect();
        for t in redundant {
            self.steps.remove(&t);
        }
    }
}

impl ResourceArea {
    fn add(&mut self, value: Resource, duration_ms: i64) {
        let duration = u128::try_from(duration_ms).unwrap_or(0);
        self.memory_mb_ms = self
            .memory_mb_ms
            .saturating_add(u128::from(value.memory_mb) * duration);
        self.vcore_ms = self
            .vcore_ms
            .saturating_add(u128::from(value.vcores) * duration);
    }

    /// `resource` held for `duration_ms`.
    pub fn of(resource: Resource, duration_ms: i64) -> Self {
        let mut area = Self::default();
        area.add(resource, duration_ms);
        area
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gb(memory_gb: u64) -> Resource {
        Resource::new(memory_gb * 1024, u32::try_from(memory_gb).unwrap())
    }

    #[test]
    fn overlapping_additions_sum_and_subtraction_restores_the_canonical_form() {
        let mut timeline = ResourceTimeline::of(10, 30, gb(2));
        timeline.add(20, 40, gb(3));
        assert_eq!(
            timeline.steps().collect::<Vec<_>>(),
            [(10, gb(2)), (20, gb(5)), (30, gb(3)), (40, Resource::ZERO)]
        );
        assert_eq!(timeline.at(9), Resource::ZERO);
        assert_eq!(timeline.at(25), gb(5));
        assert_eq!(timeline.at(40), Resource::ZERO);
        timeline.subtract(20, 40, gb(3));
        assert_eq!(timeline, ResourceTimeline::of(10, 30, gb(2)));
        timeline.subtract(0, 100, gb(9));
        assert!(timeline.is_empty(), "saturates at zero: {timeline:?}");
    }

    #[test]
    fn a_mirror_runs_backwards_and_back() {
        let mut timeline = ResourceTimeline::of(10, 30, gb(2));
        timeline.add(20, 40, gb(3));
        let mirror = timeline.mirrored();
        assert_eq!(mirror.at(-15), gb(2));
        assert_eq!(mirror.at(-35), gb(3));
        assert_eq!(mirror.at(-10), Resource::ZERO, "the end is exclusive");
        assert_eq!(mirror.mirrored(), timeline);
    }

    #[test]
    fn a_sum_in_one_sweep_equals_adding_one_by_one() {
        let parts = [
            ResourceTimeline::of(10, 30, gb(2)),
            ResourceTimeline::of(20, 40, gb(3)),
            ResourceTimeline::of(30, 50, gb(2)),
            ResourceTimeline::of(0, 10, gb(2)),
        ];
        let mut one_by_one = ResourceTimeline::default();
        for part in &parts {
            one_by_one.add_timeline(part);
        }
        assert_eq!(ResourceTimeline::sum(&parts), one_by_one);
        assert!(ResourceTimeline::sum(&[]).is_empty());
    }

    #[test]
    fn adjacent_equal_pieces_merge() {
        let mut timeline = ResourceTimeline::of(0, 10, gb(1));
        timeline.add(10, 20, gb(1));
        assert_eq!(timeline, ResourceTimeline::of(0, 20, gb(1)));
        assert_eq!(timeline.pieces().collect::<Vec<_>>(), [(0, 20, gb(1))]);
    }

    #[test]
    fn max_and_area_over_an_interval() {
        let mut timeline = ResourceTimeline::of(10, 30, gb(2));
        timeline.add(20, 40, gb(3));
        assert_eq!(timeline.max_over(0, 20), gb(2));
        assert_eq!(timeline.max_over(0, 21), gb(5));
        assert_eq!(timeline.max_over(30, 100), gb(3));
        assert_eq!(timeline.max_over(5, 5), Resource::ZERO);
        // 2 GiB for 10 ms, 5 for 10, 3 for 10, inside [0, 100).
        let area = timeline.area(0, 100);
        assert_eq!(area.memory_mb_ms, (20 + 50 + 30) * 1024);
        assert_eq!(area.vcore_ms, 20 + 50 + 30);
        assert_eq!(timeline.area(25, 35).memory_mb_ms, (25 + 15) * 1024);
    }
}

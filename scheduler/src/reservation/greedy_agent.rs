//! [`place`]: where a reservation's stages go in a plan, greedily, as early or as late as
//! allowed (Hadoop's greedy agent, `StageAllocatorGreedyRLE` under `IterativePlanner`).
//!
//! Placed late, stages go from the last to the first: under `R_ORDER` each must end by the time
//! the next one starts, under `R_ORDER_NO_GAP` exactly then, under `R_ALL` anywhere in the
//! window; `R_ANY` takes the last stage that fits. Within a stage, gangs are placed in the
//! latest window of the stage's duration that has room, as many as fit there, and the search
//! moves on to the window ending where the bottleneck of that one starts (no later window
//! could hold another gang). Placing early (Hadoop's default,
//! `reservation-system.favor-early-allocation`) is the same search with time running backwards.

use crate::Resource;
use crate::ResourceCalculator;

use super::reservation_definition::{RequestInterpreter, ReservationDefinition, ReservationStage};
use super::resource_timeline::ResourceTimeline;

/// The plan a definition is placed in: its capacity, what is booked already, what the
/// submitting user may hold at once, the calculator that says what fits, and the plan's time
/// step (every instant placed is a multiple of it).
#[derive(Debug, Clone, Copy)]
pub struct PlanCapacity<'a> {
    /// What the plan may hand out at any instant.
    pub capacity: Resource,
    /// What other reservations hold.
    pub booked: &'a ResourceTimeline,
    /// The sharing policy's instantaneous limit on the user, with what the user's other
    /// reservations hold: counted as unavailable while placing, as Hadoop's
    /// `CapacityOverTimePolicy` makes it, so a stage goes where the user may hold it.
    pub user: Option<(Resource, &'a ResourceTimeline)>,
    /// Memory only, or dominant resource fairness.
    pub calculator: ResourceCalculator,
    /// `yarn.resourcemanager.reservation-system.planfollower.time-step`, in milliseconds.
    pub step_ms: i64,
    /// `yarn.resourcemanager.reservation-system.favor-early-allocation`: place as early as
    /// allowed rather than as late.
    pub favor_early: bool,
}

/// Why a definition found no room.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementRefusal {
    /// A stage's gangs did not all fit before its deadline.
    #[error(
        "reservation request {stage} ({gangs} gang(s) of {gang} for {duration_ms} ms) does not \
         fit in the plan between {earliest_ms} and {latest_ms}: {placed} gang(s) found room"
    )]
    NoRoom {
        /// The stage's index.
        stage: usize,
        /// How many gangs it needs.
        gangs: u64,
        /// What one gang holds.
        gang: Resource,
        /// How long each runs, rounded up to the step.
        duration_ms: i64,
        /// The earliest its gangs could start.
        earliest_ms: i64,
        /// The latest they could end.
        latest_ms: i64,
        /// How many found room.
        placed: u64,
    },
    /// One gang of a stage is larger than the plan, or than the user may hold at once.
    #[error(
        "the gang of reservation request {stage} ({gang}) is larger than the plan gives at once \
         ({capacity}: its capacity, or the user's instantaneous-max-capacity)"
    )]
    GangTooLarge {
        /// The stage's index.
        stage: usize,
        /// What one gang holds.
        gang: Resource,
        /// The smaller of the plan's capacity and the user's limit.
        capacity: Resource,
    },
    /// Under `R_ORDER_NO_GAP`, a stage could not be placed in one block right next to its
    /// neighbour.
    #[error(
        "reservation request {stage} cannot be placed as one block meeting the requests next \
         to it at {at_ms}, as R_ORDER_NO_GAP requires"
    )]
    Gap {
        /// The stage's index.
        stage: usize,
        /// Where it should have met the stage placed before it (the next one in order when
        /// placing late, the previous one when early), or the end of the window.
        at_ms: i64,
    },
}

/// Places `definition` in `plan`: the allocation over time it would hold, which together with
/// `plan.booked` never exceeds `plan.capacity` at any instant.
///
/// Arrival is rounded up and deadline and durations are rounded to the step (durations up,
/// deadline down), so every piece starts and ends on a step.
///
/// # Errors
///
/// [`PlacementRefusal`] naming the stage that found no room (for `R_ANY`, the last one tried).
pub fn place(
    definition: &ReservationDefinition,
    plan: PlanCapacity<'_>,
) -> Result<ResourceTimeline, PlacementRefusal> {
    if !plan.favor_early {
        return place_late(definition, plan);
    }
    let last = definition.stages.len().saturating_sub(1);
    let mirror = ReservationDefinition {
        arrival_ms: -definition.deadline_ms,
        deadline_ms: -definition.arrival_ms,
        stages: definition.stages.iter().rev().copied().collect(),
        ..definition.clone()
    };
    let booked = plan.booked.mirrored();
    let user = plan.user.map(|(limit, held)| (limit, held.mirrored()));
    let placed = place_late(
        &mirror,
        PlanCapacity {
            booked: &booked,
            user: user.as_ref().map(|(limit, held)| (*limit, held)),
            ..plan
        },
    );
    match placed {
        Ok(placed) => Ok(placed.mirrored()),
        Err(PlacementRefusal::NoRoom {
            stage,
            gangs,
            gang,
            duration_ms,
            earliest_ms,
            latest_ms,
            placed,
        }) => Err(PlacementRefusal::NoRoom {
            stage: last - stage,
            gangs,
            gang,
            duration_ms,
            earliest_ms: -latest_ms,
            latest_ms: -earliest_ms,
            placed,
        }),
        Err(PlacementRefusal::Gap { stage, at_ms }) => Err(PlacementRefusal::Gap {
            stage: last - stage,
            at_ms: -at_ms,
        }),
        Err(PlacementRefusal::GangTooLarge {
            stage,
            gang,
            capacity,
        }) => Err(PlacementRefusal::GangTooLarge {
            stage: last - stage,
            gang,
            capacity,
        }),
    }
}

/// [`place`] as late as allowed.
fn place_late(
    definition: &ReservationDefinition,
    plan: PlanCapacity<'_>,
) -> Result<ResourceTimeline, PlacementRefusal> {
    let step = plan.step_ms.max(1);
    let earliest = round_up(definition.arrival_ms, step);
    let latest = definition.deadline_ms.div_euclid(step) * step;
    let mut booked: Vec<Ceiling> = std::iter::once((plan.capacity, plan.booked))
        .chain(plan.user)
        .map(|(limit, held)| Ceiling {
            limit,
            held: held.clone(),
        })
        .collect();
    let mut placed = ResourceTimeline::default();
    let stages = definition.stages.iter().enumerate();
    match definition.interpreter {
        RequestInterpreter::Any => {
            let mut refusal = None;
            for (index, stage) in stages.rev() {
                let mut placer = StagePlacer::new(plan, &mut booked, index, stage, step);
                match placer.place(earliest, latest) {
                    Ok(stage_placed) => return Ok(stage_placed),
                    Err(err) => refusal = Some(err),
                }
            }
            Err(refusal.expect("a checked definition has stages"))
        }
        RequestInterpreter::All => {
            for (index, stage) in stages.rev() {
                let mut placer = StagePlacer::new(plan, &mut booked, index, stage, step);
                placed.add_timeline(&placer.place(earliest, latest)?);
            }
            Ok(placed)
        }
        RequestInterpreter::Order | RequestInterpreter::OrderNoGap => {
            let no_gap = definition.interpreter == RequestInterpreter::OrderNoGap;
            // before[i]: the room the stages ahead of stage i need, left free before it.
            let before: Vec<i64> = definition
                .stages
                .iter()
                .scan(0, |sum, stage| {
                    let ahead = *sum;
                    *sum += round_up(stage.duration_ms, step);
                    Some(ahead)
                })
                .collect();
            let mut stage_deadline = latest;
            for (index, stage) in stages.rev() {
                let mut placer = StagePlacer::new(plan, &mut booked, index, stage, step);
                let stage_placed = placer.place(earliest + before[index], stage_deadline)?;
                let (start, end) = stage_placed
                    .span()
                    .unwrap_or((stage_deadline, stage_deadline));
                let touches = index + 1 == definition.stages.len() || end == stage_deadline;
                if no_gap && (!touches || stage_placed.pieces().count() > 1) {
                    return Err(PlacementRefusal::Gap {
                        stage: index,
                        at_ms: stage_deadline,
                    });
                }
                placed.add_timeline(&stage_placed);
                stage_deadline = start;
            }
            Ok(placed)
        }
    }
}

/// `t_ms` rounded up to a multiple of `step` (which is positive).
fn round_up(t_ms: i64, step: i64) -> i64 {
    -((-t_ms).div_euclid(step) * step)
}

/// One bound on what a placement may hold at each instant: `limit` less what `held` holds.
struct Ceiling {
    limit: Resource,
    held: ResourceTimeline,
}

/// Places one stage's gangs under every ceiling (the plan's, and the user's), booking them in
/// each as it goes.
struct StagePlacer<'p, 'b> {
    plan: PlanCapacity<'p>,
    booked: &'b mut [Ceiling],
    index: usize,
    gang: Resource,
    gangs: u64,
    duration: i64,
}

impl<'p, 'b> StagePlacer<'p, 'b> {
    fn new(
        plan: PlanCapacity<'p>,
        booked: &'b mut [Ceiling],
        index: usize,
        stage: &ReservationStage,
        step: i64,
    ) -> Self {
        Self {
            plan,
            booked,
            index,
            gang: stage.gang(),
            gangs: stage.gangs(),
            duration: round_up(stage.duration_ms, step),
        }
    }

    /// The stage's allocation with every piece inside `[earliest, latest)`; on refusal,
    /// `booked` is as it was.
    fn place(&mut self, earliest: i64, latest: i64) -> Result<ResourceTimeline, PlacementRefusal> {
        if let Some(ceiling) = self
            .booked
            .iter()
            .find(|ceiling| self.how_many_fit(ceiling.limit) == 0)
        {
            // No window could ever hold it: refused before walking the plan.
            return Err(PlacementRefusal::GangTooLarge {
                stage: self.index,
                gang: self.gang,
                capacity: ceiling.limit,
            });
        }
        let mut placed = ResourceTimeline::default();
        let mut left = self.gangs;
        let mut end = latest;
        while left > 0 && end - self.duration >= earliest {
            let start = end - self.duration;
            let count = self
                .booked
                .iter()
                .map(|ceiling| {
                    let free = ceiling
                        .limit
                        .saturating_sub(ceiling.held.max_over(start, end));
                    self.how_many_fit(free)
                })
                .min()
                .unwrap_or(0)
                .min(left);
            if count > 0 {
                let resource = self
                    .gang
                    .saturating_mul(u32::try_from(count).unwrap_or(u32::MAX));
                placed.add(start, end, resource);
                for ceiling in self.booked.iter_mut() {
                    ceiling.held.add(start, end, resource);
                }
                left -= count;
            }
            // Every window ending after the bottleneck's start overlaps it.
            end = self
                .latest_bottleneck(start, end)
                .unwrap_or(end - self.plan.step_ms.max(1))
                .min(end - 1);
            end = end.div_euclid(self.plan.step_ms.max(1)) * self.plan.step_ms.max(1);
        }
        if left > 0 {
            for ceiling in self.booked.iter_mut() {
                ceiling.held.subtract_timeline(&placed);
            }
            return Err(PlacementRefusal::NoRoom {
                stage: self.index,
                gangs: self.gangs,
                gang: self.gang,
                duration_ms: self.duration,
                earliest_ms: earliest,
                latest_ms: latest,
                placed: self.gangs - left,
            });
        }
        Ok(placed)
    }

    /// How many gangs fit in `free`.
    fn how_many_fit(&self, free: Resource) -> u64 {
        let memory = free.memory_mb / self.gang.memory_mb.max(1);
        match self.plan.calculator {
            ResourceCalculator::Default => memory,
            ResourceCalculator::DominantResource => {
                memory.min(u64::from(free.vcores / self.gang.vcores.max(1)))
            }
        }
    }

    /// Where the search goes next from the window `[start, end)`: the start of the piece that
    /// holds the window's latest instant where no further gang fits under some ceiling. Every
    /// window ending after that start holds a full instant of that piece.
    fn latest_bottleneck(&self, start: i64, end: i64) -> Option<i64> {
        self.booked
            .iter()
            .filter_map(|ceiling| self.latest_full_piece(ceiling, start, end))
            // The latest full instant first, then the earliest start of a piece holding it.
            .max_by_key(|&(instant, piece_start)| (instant, std::cmp::Reverse(piece_start)))
            .map(|(_, piece_start)| piece_start)
    }

    /// Under one ceiling, the latest instant of `[start, end)` where no gang fits, and the
    /// start of the piece holding it.
    fn latest_full_piece(&self, ceiling: &Ceiling, start: i64, end: i64) -> Option<(i64, i64)> {
        let full = |value: Resource| self.how_many_fit(ceiling.limit.saturating_sub(value)) == 0;
        let mut piece_end = end;
        for (t, value) in ceiling.held.steps_between_rev(start, end) {
            if full(value) {
                return Some((piece_end - 1, t));
            }
            piece_end = t;
        }
        full(ceiling.held.at(start)).then(|| {
            let piece_start = ceiling
                .held
                .last_change_at_or_before(start)
                .unwrap_or(start);
            (piece_end - 1, piece_start)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1024;
    const STEP: i64 = 1_000;

    fn gb(memory_gb: u64) -> Resource {
        Resource::new(memory_gb * GB, u32::try_from(memory_gb).unwrap())
    }

    fn stage(containers: i32, gang: i32, duration_ms: i64) -> ReservationStage {
        ReservationStage {
            capability: gb(1),
            num_containers: containers,
            concurrency: gang,
            duration_ms,
        }
    }

    fn definition(
        interpreter: RequestInterpreter,
        stages: Vec<ReservationStage>,
    ) -> ReservationDefinition {
        ReservationDefinition {
            arrival_ms: 0,
            deadline_ms: 10_000,
            stages,
            interpreter,
            name: String::new(),
            priority: 0,
        }
    }

    fn plan_of<'a>(
        capacity: Resource,
        booked: &'a ResourceTimeline,
        user: Option<(Resource, &'a ResourceTimeline)>,
        calculator: ResourceCalculator,
        favor_early: bool,
    ) -> PlanCapacity<'a> {
        PlanCapacity {
            capacity,
            booked,
            user,
            calculator,
            step_ms: STEP,
            favor_early,
        }
    }

    fn place_in(
        definition: &ReservationDefinition,
        capacity_gb: u64,
        booked: &ResourceTimeline,
    ) -> Result<ResourceTimeline, PlacementRefusal> {
        place(
            definition,
            PlanCapacity {
                capacity: gb(capacity_gb),
                booked,
                user: None,
                calculator: ResourceCalculator::Default,
                step_ms: STEP,
                favor_early: false,
            },
        )
    }

    #[test]
    fn a_stage_is_placed_as_late_as_the_deadline_allows() {
        let placed = place_in(
            &definition(RequestInterpreter::All, vec![stage(4, 4, 3_000)]),
            10,
            &ResourceTimeline::default(),
        )
        .unwrap();
        assert_eq!(placed, ResourceTimeline::of(7_000, 10_000, gb(4)));
    }

    #[test]
    fn gangs_that_do_not_fit_together_move_earlier() {
        // 6 of 10 GiB are booked in [7 s, 10 s): two of the three 2-GiB gangs fit there, the
        // third goes in the latest window before the bottleneck.
        let booked = ResourceTimeline::of(7_000, 10_000, gb(6));
        let placed = place_in(
            &definition(RequestInterpreter::All, vec![stage(6, 2, 3_000)]),
            10,
            &booked,
        )
        .unwrap();
        let mut expected = ResourceTimeline::of(7_000, 10_000, gb(4));
        expected.add(4_000, 7_000, gb(2));
        assert_eq!(placed, expected);
    }

    #[test]
    fn a_gang_never_splits_and_no_room_is_refused_with_the_stage() {
        // 3 GiB free everywhere: a gang of 4 containers never fits.
        let booked = ResourceTimeline::of(0, 20_000, gb(7));
        let refusal = place_in(
            &definition(RequestInterpreter::All, vec![stage(4, 4, 1_000)]),
            10,
            &booked,
        )
        .unwrap_err();
        assert!(
            matches!(
                refusal,
                PlacementRefusal::NoRoom {
                    stage: 0,
                    gangs: 1,
                    placed: 0,
                    ..
                }
            ),
            "{refusal:?}"
        );
    }

    #[test]
    fn ordered_stages_follow_one_another() {
        let placed = place_in(
            &definition(
                RequestInterpreter::Order,
                vec![stage(2, 2, 2_000), stage(4, 4, 3_000)],
            ),
            10,
            &ResourceTimeline::default(),
        )
        .unwrap();
        let mut expected = ResourceTimeline::of(7_000, 10_000, gb(4));
        expected.add(5_000, 7_000, gb(2));
        assert_eq!(placed, expected);
    }

    #[test]
    fn under_no_gap_a_stage_that_cannot_end_where_the_next_starts_is_refused() {
        // [5 s, 7 s) is full, so the first stage could only end before 5 s.
        let booked = ResourceTimeline::of(5_000, 7_000, gb(10));
        let stages = vec![stage(2, 2, 2_000), stage(4, 4, 3_000)];
        let ordered = place_in(
            &definition(RequestInterpreter::Order, stages.clone()),
            10,
            &booked,
        );
        assert!(ordered.is_ok(), "a gap is fine under R_ORDER: {ordered:?}");
        let refusal = place_in(
            &definition(RequestInterpreter::OrderNoGap, stages),
            10,
            &booked,
        )
        .unwrap_err();
        assert_eq!(
            refusal,
            PlacementRefusal::Gap {
                stage: 0,
                at_ms: 7_000
            }
        );
    }

    #[test]
    fn under_no_gap_a_stage_split_in_blocks_is_refused() {
        // The last stage's three gangs of 2 GiB find room for two in [7 s, 10 s) and the third
        // only in [1 s, 4 s): two blocks with a hole, which R_ORDER_NO_GAP refuses.
        let mut booked = ResourceTimeline::of(7_000, 10_000, gb(6));
        booked.add(4_000, 7_000, gb(10));
        let stages = vec![stage(1, 1, 1_000), stage(6, 2, 3_000)];
        let refusal = place_in(
            &definition(RequestInterpreter::OrderNoGap, stages.clone()),
            10,
            &booked,
        )
        .unwrap_err();
        assert!(
            matches!(refusal, PlacementRefusal::Gap { stage: 1, .. }),
            "{refusal:?}"
        );
        assert!(place_in(&definition(RequestInterpreter::Order, stages), 10, &booked).is_ok());
    }

    #[test]
    fn any_takes_the_last_stage_that_fits_when_placing_late() {
        let stages = vec![stage(2, 1, 1_000), stage(20, 20, 1_000)];
        let placed = place_in(
            &definition(RequestInterpreter::Any, stages),
            10,
            &ResourceTimeline::default(),
        )
        .unwrap();
        assert_eq!(placed, ResourceTimeline::of(9_000, 10_000, gb(2)));
    }

    #[test]
    fn placing_early_is_placing_late_with_time_reversed() {
        // Booked: 6 of 10 GiB in [0 s, 3 s). Two stages in order, placed early: the first
        // (3 gangs of 2 GiB) has room for two gangs at once from 0 s, the third follows the
        // bottleneck; the second starts when the first has ended.
        let booked = ResourceTimeline::of(0, 3_000, gb(6));
        let ordered = definition(
            RequestInterpreter::Order,
            vec![stage(6, 2, 3_000), stage(4, 4, 1_000)],
        );
        let placed = place(
            &ordered,
            plan_of(gb(10), &booked, None, ResourceCalculator::Default, true),
        )
        .unwrap();
        let mut expected = ResourceTimeline::of(0, 3_000, gb(4));
        expected.add(3_000, 6_000, gb(2));
        expected.add(6_000, 7_000, gb(4));
        assert_eq!(placed, expected);
        // Refusals name the stages as the user wrote them.
        let no_gap = ReservationDefinition {
            interpreter: RequestInterpreter::OrderNoGap,
            stages: vec![stage(4, 4, 1_000), stage(10, 10, 1_000)],
            ..ordered
        };
        let refusal = place(
            &no_gap,
            PlanCapacity {
                capacity: gb(10),
                booked: &ResourceTimeline::of(1_000, 2_000, gb(1)),
                user: None,
                calculator: ResourceCalculator::Default,
                step_ms: STEP,
                favor_early: true,
            },
        )
        .unwrap_err();
        assert_eq!(
            refusal,
            PlacementRefusal::Gap {
                stage: 1,
                at_ms: 1_000
            }
        );
    }

    #[test]
    fn a_stage_goes_where_the_user_may_hold_it() {
        // The user holds 4 of its 5 GiB in [7 s, 10 s): a 2 GiB gang goes before, though the
        // plan has room there.
        let user_held = ResourceTimeline::of(7_000, 10_000, gb(4));
        let plan = || {
            plan_of(
                gb(10),
                &user_held,
                Some((gb(5), &user_held)),
                ResourceCalculator::Default,
                false,
            )
        };
        let placed = place(
            &definition(RequestInterpreter::All, vec![stage(2, 2, 3_000)]),
            plan(),
        )
        .unwrap();
        assert_eq!(placed, ResourceTimeline::of(4_000, 7_000, gb(2)));
        let refusal = place(
            &definition(RequestInterpreter::All, vec![stage(6, 6, 1_000)]),
            plan(),
        )
        .unwrap_err();
        assert_eq!(
            refusal,
            PlacementRefusal::GangTooLarge {
                stage: 0,
                gang: gb(6),
                capacity: gb(5)
            },
            "a gang above the user's limit never fits"
        );
    }

    #[test]
    fn times_are_aligned_to_the_step() {
        let mut unaligned = definition(RequestInterpreter::All, vec![stage(1, 1, 1_500)]);
        unaligned.arrival_ms = 300;
        unaligned.deadline_ms = 9_700;
        let placed = place_in(&unaligned, 10, &ResourceTimeline::default()).unwrap();
        assert_eq!(placed, ResourceTimeline::of(7_000, 9_000, gb(1)));
    }

    #[test]
    fn the_dominant_resource_calculator_counts_vcores() {
        let booked = ResourceTimeline::of(0, 20_000, Resource::new(0, 9));
        let memory_only = place_in(
            &definition(RequestInterpreter::All, vec![stage(2, 2, 1_000)]),
            10,
            &booked,
        );
        assert!(memory_only.is_ok());
        let drf = place(
            &definition(RequestInterpreter::All, vec![stage(2, 2, 1_000)]),
            plan_of(
                gb(10),
                &booked,
                None,
                ResourceCalculator::DominantResource,
                false,
            ),
        );
        assert!(drf.is_err(), "one vcore is free: {drf:?}");
    }
}

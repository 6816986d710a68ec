//! [`ReservationDefinition`]: what a user asks the ReservationSystem for, and the checks every
//! definition passes before the agent tries to place it.

use serde::{Deserialize, Serialize};

use crate::Resource;

/// How the stages of a definition combine (Hadoop's `ReservationRequestInterpreter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequestInterpreter {
    /// Any one stage, the first that fits (`R_ANY`).
    Any,
    /// Every stage, each anywhere between arrival and deadline (`R_ALL`).
    All,
    /// Every stage, each after the one before it (`R_ORDER`).
    Order,
    /// Every stage, each starting exactly when the one before it ends (`R_ORDER_NO_GAP`).
    OrderNoGap,
}

impl RequestInterpreter {
    /// Hadoop's name of the interpreter.
    pub const fn hadoop_name(self) -> &'static str {
        match self {
            Self::Any => "R_ANY",
            Self::All => "R_ALL",
            Self::Order => "R_ORDER",
            Self::OrderNoGap => "R_ORDER_NO_GAP",
        }
    }

    /// Reads Hadoop's name of an interpreter.
    pub fn from_hadoop_name(name: &str) -> Option<Self> {
        [Self::Any, Self::All, Self::Order, Self::OrderNoGap]
            .into_iter()
            .find(|interpreter| interpreter.hadoop_name() == name)
    }
}

/// One stage of a reservation (Hadoop's `ReservationRequest`): `num_containers` containers of
/// `capability` for `duration_ms`, in gangs of `concurrency` that must run at the same time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationStage {
    /// The size of one container.
    pub capability: Resource,
    /// How many containers.
    pub num_containers: i32,
    /// How many of them must run together (the gang size).
    pub concurrency: i32,
    /// How long each runs, in milliseconds.
    pub duration_ms: i64,
}

/// What a user asks to reserve: stages to place between `arrival_ms` and `deadline_ms`
/// (milliseconds since the Unix epoch), combined as `interpreter` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationDefinition {
    /// The earliest any stage may start.
    pub arrival_ms: i64,
    /// When every stage must have ended.
    pub deadline_ms: i64,
    /// The stages, in order.
    pub stages: Vec<ReservationStage>,
    /// How the stages combine.
    pub interpreter: RequestInterpreter,
    /// The user's name for the reservation.
    pub name: String,
    /// The reservation's priority, kept and reported.
    pub priority: i32,
}

/// The most stages one definition may have: placing a stage walks the plan, and the leader
/// admits one reservation at a time.
pub const MAX_STAGES: usize = 1_000;

/// How far ahead a deadline may be: ten years. It keeps every instant the agent computes, and
/// a plan's sliding windows, far from the limits of the millisecond arithmetic.
pub const MAX_HORIZON_MS: i64 = 10 * 366 * 24 * 3_600_000;

/// A definition that cannot be placed whatever the plan holds: the field at fault (as Hadoop's
/// protocol names it) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct DefinitionRefusal {
    /// The field at fault, such as `reservation_requests[1].duration`.
    pub field: String,
    /// What was wrong with it, with the values involved.
    pub message: String,
}

impl DefinitionRefusal {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl ReservationStage {
    /// What runs at once in one gang: `concurrency` containers.
    pub fn gang(&self) -> Resource {
        self.capability
            .saturating_mul(u32::try_from(self.concurrency).unwrap_or(0))
    }

    /// How many gangs the stage places: `num_containers / concurrency` (a checked stage's
    /// gang size divides its containers).
    pub fn gangs(&self) -> u64 {
        let containers = u64::try_from(self.num_containers).unwrap_or(0);
        containers / u64::try_from(self.concurrency).unwrap_or(1).max(1)
    }
}

impl ReservationDefinition {
    /// Checks the definition as Hadoop's `ReservationInputValidator` does: a deadline after
    /// the arrival and not already past at `now_ms`, at least one stage, and stages whose
    /// containers, gangs, sizes and durations are positive, no larger than `maximum_allocation`
    /// per container, and whose durations fit between arrival and deadline (each of them, and
    /// all of them in a row for `R_ORDER` and `R_ORDER_NO_GAP`). Beyond Hadoop, so that no
    /// definition makes the leader's arithmetic overflow or its placement run long: a
    /// non-negative arrival, a deadline at most [`MAX_HORIZON_MS`] after `now_ms`, and at most
    /// [`MAX_STAGES`] stages.
    ///
    /// # Errors
    ///
    /// The first problem found, naming its field.
    pub fn check(
        &self,
        now_ms: i64,
        maximum_allocation: Resource,
    ) -> Result<(), DefinitionRefusal> {
        if self.deadline_ms <= now_ms {
            return Err(DefinitionRefusal::new(
                "deadline",
                format!(
                    "the deadline {} is not in the future (now is {now_ms})",
                    self.deadline_ms
                ),
            ));
        }
        if self.deadline_ms > now_ms.saturating_add(MAX_HORIZON_MS) {
            return Err(DefinitionRefusal::new(
                "deadline",
                format!(
                    "the deadline {} is more than ten years ahead (now is {now_ms})",
                    self.deadline_ms
                ),
            ));
        }
        if self.arrival_ms < 0 {
            return Err(DefinitionRefusal::new(
                "arrival",
                format!("the arrival {} is before the Unix epoch", self.arrival_ms),
            ));
        }
        if self.arrival_ms >= self.deadline_ms {
            return Err(DefinitionRefusal::new(
                "deadline",
                format!(
                    "the deadline {} must come after the arrival {}",
                    self.deadline_ms, self.arrival_ms
                ),
            ));
        }
        if self.stages.is_empty() {
            return Err(DefinitionRefusal::new(
                "reservation_requests",
                "a reservation needs at least one reservation request",
            ));
        }
        if self.stages.len() > MAX_STAGES {
            return Err(DefinitionRefusal::new(
                "reservation_requests",
                format!(
                    "a reservation has at most {MAX_STAGES} reservation requests, and this one \
                     has {}",
                    self.stages.len()
                ),
            ));
        }
        // Both bounded above, so the difference cannot overflow.
        let window = self.deadline_ms - self.arrival_ms;
        for (index, stage) in self.stages.iter().enumerate() {
            check_stage(index, stage, maximum_allocation)?;
            if stage.duration_ms > window {
                return Err(DefinitionRefusal::new(
                    format!("reservation_requests[{index}].duration"),
                    format!(
                        "{} ms does not fit between the arrival {} and the deadline {} ({window} \
                         ms)",
                        stage.duration_ms, self.arrival_ms, self.deadline_ms
                    ),
                ));
            }
        }
        let in_a_row = matches!(
            self.interpreter,
            RequestInterpreter::Order | RequestInterpreter::OrderNoGap
        );
        let needed = self
            .stages
            .iter()
            .fold(0i64, |sum, stage| sum.saturating_add(stage.duration_ms));
        if in_a_row && needed > window {
            return Err(DefinitionRefusal::new(
                "reservation_requests",
                format!(
                    "the sum of the requests' durations ({needed} ms) does not fit between the \
                     arrival {} and the deadline {} ({window} ms) under {}",
                    self.arrival_ms,
                    self.deadline_ms,
                    self.interpreter.hadoop_name()
                ),
            ));
        }
        Ok(())
    }
}

fn check_stage(
    index: usize,
    stage: &ReservationStage,
    maximum_allocation: Resource,
) -> Result<(), DefinitionRefusal> {
    let field = |name: &str| format!("reservation_requests[{index}].{name}");
    if stage.num_containers <= 0 {
        return Err(DefinitionRefusal::new(
            field("num_containers"),
            format!("must be positive, and it is {}", stage.num_containers),
        ));
    }
    if stage.concurrency <= 0 || stage.num_containers % stage.concurrency != 0 {
        return Err(DefinitionRefusal::new(
            field("concurrency"),
            format!(
                "the gang size must be positive and divide num_containers ({}) exactly, and it \
                 is {}",
                stage.num_containers, stage.concurrency
            ),
        ));
    }
    if stage.duration_ms <= 0 {
        return Err(DefinitionRefusal::new(
            field("duration"),
            format!("must be positive, and it is {} ms", stage.duration_ms),
        ));
    }
    if stage.capability.memory_mb == 0 || stage.capability.vcores == 0 {
        return Err(DefinitionRefusal::new(
            field("capability"),
            format!(
                "needs memory and vcores above zero, and it is {}",
                stage.capability
            ),
        ));
    }
    if !stage
        .capability
        .fits_in_every_dimension(&maximum_allocation)
    {
        return Err(DefinitionRefusal::new(
            field("capability"),
            format!(
                "{} is larger than the largest container the scheduler grants, {}",
                stage.capability, maximum_allocation
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Resource = Resource::new(8192, 4);

    fn stage(num_containers: i32, concurrency: i32, duration_ms: i64) -> ReservationStage {
        ReservationStage {
            capability: Resource::new(1024, 1),
            num_containers,
            concurrency,
            duration_ms,
        }
    }

    fn definition(stages: Vec<ReservationStage>) -> ReservationDefinition {
        ReservationDefinition {
            arrival_ms: 1_000,
            deadline_ms: 11_000,
            stages,
            interpreter: RequestInterpreter::All,
            name: "nightly".to_owned(),
            priority: 0,
        }
    }

    fn refused_field(definition: &ReservationDefinition) -> String {
        definition.check(0, MAX).unwrap_err().field
    }

    #[test]
    fn a_well_formed_definition_passes() {
        assert_eq!(definition(vec![stage(4, 2, 5_000)]).check(0, MAX), Ok(()));
    }

    #[test]
    fn each_bad_field_is_named() {
        let mut late = definition(vec![stage(1, 1, 1_000)]);
        late.deadline_ms = 500;
        assert_eq!(refused_field(&late), "deadline", "before the arrival");
        let past = definition(vec![stage(1, 1, 1_000)]);
        let refusal = past.check(20_000, MAX).unwrap_err();
        assert_eq!(refusal.field, "deadline");
        assert!(refusal.message.contains("not in the future"), "{refusal}");
        assert_eq!(refused_field(&definition(vec![])), "reservation_requests");
        assert_eq!(
            refused_field(&definition(vec![stage(1, 1, 1_000), stage(0, 1, 1_000)])),
            "reservation_requests[1].num_containers"
        );
        assert_eq!(
            refused_field(&definition(vec![stage(2, 3, 1_000)])),
            "reservation_requests[0].concurrency"
        );
        assert_eq!(
            refused_field(&definition(vec![stage(2, 1, -5)])),
            "reservation_requests[0].duration"
        );
        let mut empty = stage(1, 1, 1_000);
        empty.capability = Resource::new(0, 1);
        assert_eq!(
            refused_field(&definition(vec![empty])),
            "reservation_requests[0].capability"
        );
        let mut huge = stage(1, 1, 1_000);
        huge.capability = Resource::new(16_384, 1);
        assert_eq!(
            refused_field(&definition(vec![huge])),
            "reservation_requests[0].capability"
        );
    }

    #[test]
    fn durations_must_fit_the_window_as_the_interpreter_combines_them() {
        let stages = vec![stage(1, 1, 6_000), stage(1, 1, 6_000)];
        let mut all = definition(stages);
        assert_eq!(all.check(0, MAX), Ok(()), "each fits on its own");
        all.interpreter = RequestInterpreter::Order;
        let refusal = all.check(0, MAX).unwrap_err();
        assert!(refusal.message.contains("12000 ms"), "{refusal}");
        all.interpreter = RequestInterpreter::Any;
        all.stages[1].duration_ms = i64::MAX;
        assert_eq!(
            refused_field(&all),
            "reservation_requests[1].duration",
            "under R_ANY too, every stage must fit the window"
        );
    }

    #[test]
    fn what_would_overflow_or_run_long_is_refused() {
        let mut far = definition(vec![stage(1, 1, 1_000)]);
        far.deadline_ms = i64::MAX;
        assert_eq!(refused_field(&far), "deadline");
        let mut before_epoch = definition(vec![stage(1, 1, 1_000)]);
        before_epoch.arrival_ms = i64::MIN;
        assert_eq!(refused_field(&before_epoch), "arrival");
        let many = definition(vec![stage(1, 1, 1); MAX_STAGES + 1]);
        assert_eq!(refused_field(&many), "reservation_requests");
    }

    #[test]
    fn gangs_divide_the_containers() {
        assert_eq!(stage(6, 2, 1).gangs(), 3);
        assert_eq!(
            refused_field(&definition(vec![stage(5, 2, 1_000)])),
            "reservation_requests[0].concurrency"
        );
        assert_eq!(stage(4, 2, 1).gang(), Resource::new(2048, 2));
    }
}

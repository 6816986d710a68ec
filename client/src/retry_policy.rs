//! When a failed RM call is resent, where, and after how long: a pure decision.

use std::time::Duration;

use yarn_proto::LeaderHint;

use crate::Failure;

/// Whether a call may be executed twice without harm.
///
/// Idempotent calls name their dedupe key in the `.proto` comment (or are read-only); only they
/// are resent when a failure leaves their outcome unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idempotency {
    /// Executing the call twice has the effect of executing it once.
    Idempotent,
    /// A second execution could change the outcome; resent only when the first provably did
    /// not run.
    NotIdempotent,
}

/// The attempts one call has made so far; the caller records each attempt before asking the
/// policy what to do about its failure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallHistory {
    attempts: u32,
    backoffs: u32,
    last_rm_id: Option<String>,
    followed_hints: Vec<String>,
}

impl CallHistory {
    /// A call that has made no attempt yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an attempt sent to `rm_id`.
    pub fn attempted(&mut self, rm_id: &str) {
        self.attempts = self.attempts.saturating_add(1);
        self.last_rm_id = Some(rm_id.to_owned());
    }

    /// Records that `decision` is being carried out, so that later decisions see the pauses
    /// taken and the hints already followed.
    pub fn carried_out(&mut self, decision: &RetryDecision) {
        if let RetryDecision::Retry { delay, target } = decision {
            if !delay.is_zero() {
                self.backoffs = self.backoffs.saturating_add(1);
            }
            if let RetryTarget::Hint(hint) = target {
                self.followed_hints.push(hint.rm_id.clone());
            }
        }
    }

    /// Attempts made so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }
}

/// Where the next attempt goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryTarget {
    /// The leader a replica named.
    Hint(LeaderHint),
    /// The next replica in `yarn.resourcemanager.ha.rm-ids` order.
    NextReplica,
}

/// Why a call ends with its last failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUpReason {
    /// The failure is a definitive answer or a refusal ([`Failure::Final`],
    /// [`Failure::Refused`]).
    Final,
    /// The call is not idempotent and its request may have been executed.
    OutcomeUnknown,
    /// `yarn.client.failover-max-attempts` failovers were made already.
    AttemptsExhausted,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryDecision {
    /// Wait `delay` (zero to go at once), then send the call to `target`.
    Retry {
        /// The pause before the next attempt.
        delay: Duration,
        /// Where the next attempt goes.
        target: RetryTarget,
    },
    /// Return the last failure to the caller.
    GiveUp(GiveUpReason),
}

/// The retry rules of the RM client, from `yarn.client.failover-*`.
///
/// - A not-leader refusal and a failed connect prove the call did not run: always retryable.
/// - A not-leader refusal naming a configured member that this call has not followed yet (and
///   that is not the replica that just refused) is followed at once; a repeated or self-naming
///   hint is followed after a pause, since that leader is evidently not ready yet.
/// - Any other retry fails over to the next replica after a pause.
/// - A failure after the request may have been sent is retried only for idempotent calls.
/// - A definitive answer or a refusal of the caller (or of a certificate) ends the call at once.
/// - A call makes at most `1 + max_failovers` attempts.
///
/// Pauses grow as `min(sleep_base * 2^n, sleep_max)`, `n` being the pauses this call already
/// took, and are jittered into the upper half `[d/2, d]` so that clients failing together do not
/// retry together while no pause grows beyond the configured maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    sleep_base: Duration,
    sleep_max: Duration,
    max_failovers: u32,
}

impl RetryPolicy {
    /// A policy with the given pauses and failover limit; a base above the maximum is capped to it.
    pub fn new(sleep_base: Duration, sleep_max: Duration, max_failovers: u32) -> Self {
        Self {
            sleep_base: sleep_base.min(sleep_max),
            sleep_max,
            max_failovers,
        }
    }

    /// Decides what follows the failure of the last attempt recorded in `history`.
    ///
    /// `is_member` says whether an rm id is one of the configured replicas (hints naming others
    /// are ignored). `jitter` is a number drawn uniformly from `[0, 1]` by the caller; values
    /// outside are clamped, NaN counts as 1.
    pub fn decide(
        &self,
        history: &CallHistory,
        failure: &Failure,
        idempotency: Idempotency,
        is_member: &dyn Fn(&str) -> bool,
        jitter: f64,
    ) -> RetryDecision {
        let hint = match failure {
            Failure::NotLeader { hint } => hint.as_ref().filter(|h| is_member(&h.rm_id)),
            Failure::NotSent => None,
            Failure::MaybeExecuted => match idempotency {
                Idempotency::Idempotent => None,
                Idempotency::NotIdempotent => {
                    return RetryDecision::GiveUp(GiveUpReason::OutcomeUnknown);
                }
            },
            Failure::Final | Failure::Refused { .. } => {
                return RetryDecision::GiveUp(GiveUpReason::Final);
            }
        };
        if history.attempts > self.max_failovers {
            return RetryDecision::GiveUp(GiveUpReason::AttemptsExhausted);
        }
        let pause = self.pause(history.backoffs, jitter);
        match hint {
            Some(hint) => {
                let fresh = !history.followed_hints.contains(&hint.rm_id)
                    && history.last_rm_id.as_deref() != Some(hint.rm_id.as_str());
                RetryDecision::Retry {
                    delay: if fresh { Duration::ZERO } else { pause },
                    target: RetryTarget::Hint(hint.clone()),
                }
            }
            None => RetryDecision::Retry {
                delay: pause,
                target: RetryTarget::NextReplica,
            },
        }
    }

    /// The jittered pause after `backoffs` earlier pauses.
    fn pause(&self, backoffs: u32, jitter: f64) -> Duration {
        let ceiling = match 1u32.checked_shl(backoffs) {
            Some(factor) => self.sleep_base.saturating_mul(factor).min(self.sleep_max),
            None => self.sleep_max,
        };
        let jitter = if jitter.is_nan() {
            1.0
        } else {
            jitter.clamp(0.0, 1.0)
        };
        ceiling.mul_f64(0.5 + 0.5 * jitter)
    }
}

#[cfg(test)]
mod tests {
    use yarn_security::CertificateRefusal;

    use super::*;

    const BASE: Duration = Duration::from_millis(100);
    const MAX: Duration = Duration::from_millis(1000);

    fn policy() -> RetryPolicy {
        RetryPolicy::new(BASE, MAX, 3)
    }

    fn members(id: &str) -> bool {
        ["rm1", "rm2", "rm3"].contains(&id)
    }

    fn hint(id: &str) -> LeaderHint {
        LeaderHint {
            rm_id: id.into(),
            address: format!("{id}.example.com:8033"),
        }
    }

    fn not_leader(id: Option<&str>) -> Failure {
        Failure::NotLeader { hint: id.map(hint) }
    }

    fn after(attempts: &[&str]) -> CallHistory {
        let mut history = CallHistory::new();
        for id in attempts {
            history.attempted(id);
        }
        history
    }

    fn decide(history: &CallHistory, failure: &Failure, idempotency: Idempotency) -> RetryDecision {
        policy().decide(history, failure, idempotency, &members, 1.0)
    }

    fn retry(delay: Duration, target: RetryTarget) -> RetryDecision {
        RetryDecision::Retry { delay, target }
    }

    #[test]
    fn a_fresh_hint_to_a_member_is_followed_at_once_even_for_non_idempotent_calls() {
        for idempotency in [Idempotency::Idempotent, Idempotency::NotIdempotent] {
            assert_eq!(
                decide(&after(&["rm1"]), &not_leader(Some("rm2")), idempotency),
                retry(Duration::ZERO, RetryTarget::Hint(hint("rm2")))
            );
        }
    }

    #[test]
    fn a_repeated_or_self_naming_hint_is_followed_after_a_pause() {
        let mut history = after(&["rm1"]);
        let first = decide(
            &history,
            &not_leader(Some("rm2")),
            Idempotency::NotIdempotent,
        );
        history.carried_out(&first);
        history.attempted("rm2");
        // rm2 now says rm3 leads: a new hint, followed at once.
        let second = decide(
            &history,
            &not_leader(Some("rm3")),
            Idempotency::NotIdempotent,
        );
        assert_eq!(
            second,
            retry(Duration::ZERO, RetryTarget::Hint(hint("rm3")))
        );
        history.carried_out(&second);
        history.attempted("rm3");
        // rm3 points back at rm2, already followed: pause first.
        assert_eq!(
            decide(
                &history,
                &not_leader(Some("rm2")),
                Idempotency::NotIdempotent
            ),
            retry(BASE, RetryTarget::Hint(hint("rm2")))
        );
        // A leader refusing while it finishes taking over names itself: pause, then retry it.
        assert_eq!(
            decide(
                &history,
                &not_leader(Some("rm3")),
                Idempotency::NotIdempotent
            ),
            retry(BASE, RetryTarget::Hint(hint("rm3")))
        );
    }

    #[test]
    fn refusals_without_a_usable_hint_fail_over_after_a_pause() {
        let history = after(&["rm1"]);
        for failure in [not_leader(None), not_leader(Some("rm9"))] {
            assert_eq!(
                decide(&history, &failure, Idempotency::NotIdempotent),
                retry(BASE, RetryTarget::NextReplica),
                "{failure:?}"
            );
        }
    }

    #[test]
    fn failed_connects_fail_over_for_every_call() {
        for idempotency in [Idempotency::Idempotent, Idempotency::NotIdempotent] {
            assert_eq!(
                decide(&after(&["rm1"]), &Failure::NotSent, idempotency),
                retry(BASE, RetryTarget::NextReplica)
            );
        }
    }

    #[test]
    fn possibly_executed_calls_are_retried_only_when_idempotent() {
        let history = after(&["rm1"]);
        assert_eq!(
            decide(&history, &Failure::MaybeExecuted, Idempotency::Idempotent),
            retry(BASE, RetryTarget::NextReplica)
        );
        assert_eq!(
            decide(
                &history,
                &Failure::MaybeExecuted,
                Idempotency::NotIdempotent
            ),
            RetryDecision::GiveUp(GiveUpReason::OutcomeUnknown)
        );
    }

    #[test]
    fn final_answers_and_refusals_end_the_call_at_once() {
        let refused_certificate = Failure::Refused {
            certificate: Some(CertificateRefusal::PeerSignedByAnotherCa),
        };
        for failure in [
            Failure::Final,
            Failure::Refused { certificate: None },
            refused_certificate,
        ] {
            assert_eq!(
                decide(&after(&["rm1"]), &failure, Idempotency::Idempotent),
                RetryDecision::GiveUp(GiveUpReason::Final),
                "{failure:?}"
            );
        }
    }

    #[test]
    fn a_call_makes_at_most_one_plus_max_failovers_attempts() {
        let three = after(&["rm1", "rm2", "rm3"]);
        assert!(matches!(
            decide(&three, &Failure::NotSent, Idempotency::Idempotent),
            RetryDecision::Retry { .. }
        ));
        let four = after(&["rm1", "rm2", "rm3", "rm1"]);
        for failure in [Failure::NotSent, not_leader(Some("rm2"))] {
            assert_eq!(
                decide(&four, &failure, Idempotency::Idempotent),
                RetryDecision::GiveUp(GiveUpReason::AttemptsExhausted)
            );
        }
        // The nature of the failure is reported before exhaustion.
        assert_eq!(
            decide(&four, &Failure::Final, Idempotency::Idempotent),
            RetryDecision::GiveUp(GiveUpReason::Final)
        );
    }

    #[test]
    fn pauses_double_up_to_the_maximum() {
        let policy = RetryPolicy::new(BASE, MAX, u32::MAX);
        let mut history = CallHistory::new();
        let mut ceilings = Vec::new();
        for _ in 0..40 {
            history.attempted("rm1");
            let decision = policy.decide(
                &history,
                &Failure::NotSent,
                Idempotency::Idempotent,
                &members,
                1.0,
            );
            let RetryDecision::Retry { delay, .. } = decision else {
                panic!("{decision:?}");
            };
            ceilings.push(delay.as_millis());
            history.carried_out(&decision);
        }
        assert_eq!(ceilings[..6], [100, 200, 400, 800, 1000, 1000]);
        assert!(ceilings.windows(2).all(|pair| pair[0] <= pair[1]));
        assert_eq!(
            *ceilings.last().unwrap(),
            1000,
            "no overflow after many pauses"
        );
    }

    #[test]
    fn jitter_stays_within_the_upper_half_of_the_pause() {
        let history = after(&["rm1"]);
        for (jitter, expected) in [
            (0.0, 50),
            (0.5, 75),
            (1.0, 100),
            (-3.0, 50),
            (7.0, 100),
            (f64::NAN, 100),
        ] {
            let decision = policy().decide(
                &history,
                &Failure::NotSent,
                Idempotency::Idempotent,
                &members,
                jitter,
            );
            assert_eq!(
                decision,
                retry(Duration::from_millis(expected), RetryTarget::NextReplica),
                "jitter {jitter}"
            );
        }
    }

    #[test]
    fn a_base_above_the_maximum_is_capped() {
        let policy = RetryPolicy::new(Duration::from_secs(5), Duration::from_secs(1), 1);
        let decision = policy.decide(
            &after(&["rm1"]),
            &Failure::NotSent,
            Idempotency::Idempotent,
            &members,
            1.0,
        );
        assert_eq!(
            decision,
            retry(Duration::from_secs(1), RetryTarget::NextReplica)
        );
    }
}

//! Which failed attempts count toward an application's `max-attempts`, and the rules version
//! that decides it.
//!
//! Hadoop counts an attempt's failure against `yarn.resourcemanager.am.max-attempts` (or the
//! application's own limit) only when the application could be at fault: an AM container that
//! was aborted (its node was lost), preempted, lost to failed disks or killed by the RM did not
//! fail through the application, and the attempt that ran it is retried without using up one
//! of the application's attempts (`RMAppAttemptImpl.shouldCountTowardsMaxAttemptRetry`). An
//! attempt failed by a user, by an AM launch refused, or by an AM that stopped heartbeating
//! counts, whatever exit status its AM container is completed with.

/// YARN's `ContainerExitStatus.DISKS_FAILED`.
pub const DISKS_FAILED: i32 = -101;
/// YARN's `ContainerExitStatus.PREEMPTED`.
pub const PREEMPTED: i32 = -102;

/// The apply rules this binary follows; see [`RmState::apply_rules`](super::RmState).
///
/// - 0: every failed attempt counts toward the application's max attempts (binaries before
///   rules were versioned).
/// - 1: an attempt whose AM container ended through no fault of the application does not count
///   ([`am_exit_counts`]).
/// - 2: a leaf a submission creates under a managed parent holds its template's capacity when
///   the parent has room (`yarn_scheduler::activation_fits`).
pub const APPLY_RULES: u32 = 2;

/// Whether an AM container that completed with `exit_status` fails its attempt in a way that
/// counts toward the application's max attempts, under `apply_rules`.
pub fn am_exit_counts(apply_rules: u32, exit_status: i32) -> bool {
    if apply_rules == 0 {
        return true;
    }
    !matches!(
        exit_status,
        super::ABORTED | DISKS_FAILED | PREEMPTED | super::KILLED_BY_RESOURCEMANAGER
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exits_the_application_may_have_caused_count_under_rules_1() {
        for status in [super::super::ABORTED, DISKS_FAILED, PREEMPTED, -106] {
            assert!(!am_exit_counts(1, status), "{status}");
            assert!(am_exit_counts(0, status), "rules 0 count {status}");
        }
        for status in [0, 1, 137, -105, -1000] {
            assert!(am_exit_counts(1, status), "{status}");
        }
    }
}

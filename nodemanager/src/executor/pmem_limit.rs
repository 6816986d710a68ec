//! [`PmemLimit`]: the physical-memory check of one container, a pure decision.

use yarn_proto::ids::ContainerId;
use yarn_proto::pb::ContainerExitStatusProto;

use super::KillRequest;

const MB: u64 = 1024 * 1024;

/// The memory a container may keep resident: its allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PmemLimit {
    /// The container checked.
    pub(crate) container_id: ContainerId,
    /// The pid (and process group) at the root of the container.
    pub(crate) pid: u32,
    /// The allocation in MB; 0 means no limit.
    pub(crate) limit_mb: u64,
}

impl PmemLimit {
    /// The kill to send when `usage_bytes` (the resident memory of the container's whole
    /// process group) exceeds the allocation, with status `KILLED_EXCEEDED_PMEM` and YARN's
    /// diagnostic; `None` while the container stays within it.
    pub(crate) fn check(&self, usage_bytes: u64) -> Option<KillRequest> {
        if self.limit_mb == 0 || usage_bytes <= self.limit_mb.saturating_mul(MB) {
            return None;
        }
        // Tenths of a MB, rounded, in integers so that the diagnostic never shows float noise.
        let tenths = (usage_bytes.saturating_mul(10) + MB / 2) / MB;
        Some(KillRequest::new(
            ContainerExitStatusProto::KilledExceededPmem as i32,
            format!(
                "Container [pid={},containerID={}] is running beyond physical memory limits. \
                 Current usage: {}.{} MB of {} MB physical memory used. Killing container.",
                self.pid,
                self.container_id,
                tenths / 10,
                tenths % 10,
                self.limit_mb
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(limit_mb: u64) -> PmemLimit {
        PmemLimit {
            container_id: "container_1410901177871_0001_01_000005".parse().unwrap(),
            pid: 4242,
            limit_mb,
        }
    }

    #[test]
    fn usage_up_to_the_allocation_is_allowed() {
        assert_eq!(limit(20).check(20 * MB), None);
        assert_eq!(limit(20).check(0), None);
    }

    #[test]
    fn usage_beyond_the_allocation_kills_with_yarns_status_and_diagnostic() {
        let kill = limit(20).check(104 * MB + 3 * MB / 10).unwrap();
        assert_eq!(kill.exit_status, -104);
        assert_eq!(
            kill.diagnostics,
            "Container [pid=4242,containerID=container_1410901177871_0001_01_000005] is running \
             beyond physical memory limits. Current usage: 104.3 MB of 20 MB physical memory \
             used. Killing container."
        );
    }

    #[test]
    fn a_container_without_allocation_is_not_limited() {
        assert_eq!(limit(0).check(u64::MAX), None);
    }
}

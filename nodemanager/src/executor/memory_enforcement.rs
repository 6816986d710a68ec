//! [`MemoryEnforcement`]: how the process executor holds containers to their memory
//! allocation, chosen once at start-up.

use super::{CgroupV2Memory, CgroupV2Unusable};
use crate::{Error, NmConfig};

/// How containers' memory is enforced, as `yarn.nodemanager.resource.memory.enabled`,
/// `yarn.nodemanager.pmem-check-enabled` and the host's cgroups decide:
///
/// | `memory.enabled` | `pmem-check-enabled` | cgroup v2 usable | enforcement |
/// |---|---|---|---|
/// | true | any | yes | [`CgroupV2`](Self::CgroupV2) |
/// | true | any | no | error: the NodeManager does not start |
/// | false | true | yes | [`CgroupV2`](Self::CgroupV2) |
/// | false | true | no | [`ResidentMemory`](Self::ResidentMemory) |
/// | false | false | not checked | [`Off`](Self::Off) |
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryEnforcement {
    /// Each container gets a cgroup with `memory.max` in this delegated cgroup; the kernel
    /// enforces the limit exactly, for every process of the container.
    CgroupV2(CgroupV2Memory),
    /// The resident memory of each container's process group is measured periodically from
    /// `/proc`, and containers beyond their allocation are killed; processes that leave the
    /// group escape it.
    ResidentMemory {
        /// Why cgroup v2 is not used.
        cgroup_v2_unusable: CgroupV2Unusable,
    },
    /// Memory is not enforced.
    Off,
}

impl MemoryEnforcement {
    /// Chooses the enforcement for `config`, checking the configured cgroup
    /// ([`NmConfig::cgroup_dir`]) unless memory is not to be enforced at all, and logs which
    /// enforcement is in use and why.
    ///
    /// # Errors
    ///
    /// [`Error::CgroupMemoryUnavailable`] when `yarn.nodemanager.resource.memory.enabled` is
    /// true and the cgroup cannot be used, naming the path and what is missing.
    pub fn detect(config: &NmConfig) -> Result<Self, Error> {
        let dir = config.cgroup_dir();
        let enforcement = Self::choose(
            config.cgroup_memory_enabled,
            config.pmem_check_enabled,
            || CgroupV2Memory::detect(&dir),
        )?;
        match &enforcement {
            Self::CgroupV2(memory) => tracing::info!(
                cgroup = %memory.dir().display(),
                "container memory is enforced with cgroup v2 memory.max: the cgroup is a \
                 delegated cgroup v2 directory with the memory controller"
            ),
            Self::ResidentMemory { cgroup_v2_unusable } => tracing::info!(
                reason = %cgroup_v2_unusable,
                "container memory is enforced by measuring resident memory in /proc \
                 (yarn.nodemanager.pmem-check-enabled), because cgroup v2 cannot be used"
            ),
            Self::Off => tracing::info!(
                "container memory is not enforced: yarn.nodemanager.pmem-check-enabled and \
                 yarn.nodemanager.resource.memory.enabled are both false"
            ),
        }
        Ok(enforcement)
    }

    /// The decision of [`detect`](Self::detect), given `cgroup_memory_enabled`,
    /// `pmem_check_enabled` and the cgroup check, which runs only when its answer matters.
    pub(crate) fn choose(
        cgroup_memory_enabled: bool,
        pmem_check_enabled: bool,
        detect_cgroup: impl FnOnce() -> Result<CgroupV2Memory, CgroupV2Unusable>,
    ) -> Result<Self, Error> {
        if !cgroup_memory_enabled && !pmem_check_enabled {
            return Ok(Self::Off);
        }
        match detect_cgroup() {
            Ok(memory) => Ok(Self::CgroupV2(memory)),
            Err(reason) if cgroup_memory_enabled => Err(Error::CgroupMemoryUnavailable { reason }),
            Err(cgroup_v2_unusable) => Ok(Self::ResidentMemory { cgroup_v2_unusable }),
        }
    }

    /// The delegated cgroup when containers get cgroups.
    pub fn cgroup_v2(&self) -> Option<&CgroupV2Memory> {
        match self {
            Self::CgroupV2(memory) => Some(memory),
            Self::ResidentMemory { .. } | Self::Off => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn usable() -> Result<CgroupV2Memory, CgroupV2Unusable> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("cgroup.controllers"), "memory").unwrap();
        std::fs::write(dir.path().join("cgroup.subtree_control"), "memory").unwrap();
        CgroupV2Memory::detect(dir.path())
    }

    fn missing() -> Result<CgroupV2Memory, CgroupV2Unusable> {
        Err(CgroupV2Unusable::Missing {
            path: PathBuf::from("/sys/fs/cgroup/hadoop-yarn"),
        })
    }

    #[test]
    fn a_usable_cgroup_is_used_whether_required_or_not() {
        for required in [true, false] {
            let enforcement = MemoryEnforcement::choose(required, true, usable).unwrap();
            assert!(enforcement.cgroup_v2().is_some(), "{required}");
        }
        let enforcement = MemoryEnforcement::choose(true, false, usable).unwrap();
        assert!(enforcement.cgroup_v2().is_some());
    }

    #[test]
    fn without_a_usable_cgroup_auto_falls_back_to_resident_memory_with_the_reason() {
        assert_eq!(
            MemoryEnforcement::choose(false, true, missing).unwrap(),
            MemoryEnforcement::ResidentMemory {
                cgroup_v2_unusable: missing().unwrap_err()
            }
        );
    }

    #[test]
    fn a_required_cgroup_that_is_unusable_is_an_error_naming_the_path() {
        let err = MemoryEnforcement::choose(true, true, missing).unwrap_err();
        assert_eq!(
            err,
            Error::CgroupMemoryUnavailable {
                reason: missing().unwrap_err()
            }
        );
        let text = err.to_string();
        assert!(
            text.contains("yarn.nodemanager.resource.memory.enabled")
                && text.contains("/sys/fs/cgroup/hadoop-yarn does not exist"),
            "{text}"
        );
    }

    #[test]
    fn with_both_checks_off_the_cgroup_is_not_even_looked_at() {
        let enforcement =
            MemoryEnforcement::choose(false, false, || panic!("cgroup checked")).unwrap();
        assert_eq!(enforcement, MemoryEnforcement::Off);
    }
}

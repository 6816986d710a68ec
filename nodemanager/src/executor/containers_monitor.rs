//! [`ContainersMonitor`]: the physical-memory check of every process container.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::MissedTickBehavior;
use yarn_proto::ids::ContainerId;

use super::proc_stat::{self, ProcStat};
use super::{ContainerHandle, PmemLimit};

/// The containers the monitor watches, shared between the monitor and the supervisors that
/// add and remove them.
#[derive(Debug, Clone, Default)]
pub(crate) struct MonitoredContainers {
    // std Mutex: held only to copy or edit the map, never across an .await.
    containers: Arc<Mutex<HashMap<ContainerId, (PmemLimit, ContainerHandle)>>>,
}

impl MonitoredContainers {
    /// Starts checking the container `handle` controls against `limit`.
    pub(crate) fn add(&self, limit: PmemLimit, handle: ContainerHandle) {
        self.lock().insert(limit.container_id, (limit, handle));
    }

    /// Checks `container_id` against `limit_mb` from now on (it was resized); a container not
    /// watched stays unwatched.
    pub(crate) fn set_limit(&self, container_id: ContainerId, limit_mb: u64) {
        if let Some((limit, _)) = self.lock().get_mut(&container_id) {
            limit.limit_mb = limit_mb;
        }
    }

    /// Stops checking `container_id`; its process has ended.
    pub(crate) fn remove(&self, container_id: ContainerId) {
        self.lock().remove(&container_id);
    }

    fn snapshot(&self) -> Vec<(PmemLimit, ContainerHandle)> {
        self.lock().values().cloned().collect()
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<ContainerId, (PmemLimit, ContainerHandle)>> {
        self.containers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every `yarn.nodemanager.container-monitor.interval-ms`, measures the resident memory of each
/// monitored container's process group and stops the containers beyond their allocation with
/// `KILLED_EXCEEDED_PMEM` (YARN's `ContainersMonitor` with `pmem-check-enabled`).
///
/// Memory is the sum of `/proc/<pid>/stat` RSS over the processes of the container's process
/// group, read once per interval for all containers. A process that leaves the group (with
/// `setsid` or `setpgid`) escapes the measurement. Containers with a cgroup v2 memory limit,
/// which the kernel enforces exactly, are not watched here; this check is the fallback where no
/// cgroup is delegated to the NodeManager (see [`MemoryEnforcement`](super::MemoryEnforcement)).
#[derive(Debug)]
pub(crate) struct ContainersMonitor {
    containers: MonitoredContainers,
    interval: Duration,
}

impl ContainersMonitor {
    /// A monitor of `containers` measuring every `interval`, which must not be zero.
    pub(crate) fn new(containers: MonitoredContainers, interval: Duration) -> Self {
        Self {
            containers,
            interval,
        }
    }

    /// Measures until the task is aborted (when its executor is dropped), which may happen at
    /// any `.await`; an interrupted pass has no effect beyond the kills already requested.
    pub(crate) async fn run(self) {
        let page_size = proc_stat::page_size();
        let mut ticker = tokio::time::interval(self.interval);
        // A late pass is not worth catching up on: the next one measures the same processes.
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            let containers = self.containers.snapshot();
            if containers.is_empty() {
                continue;
            }
            // Reading /proc is blocking file I/O proportional to the number of processes.
            let Ok(processes) = tokio::task::spawn_blocking(ProcStat::read_all).await else {
                continue;
            };
            let usage = proc_stat::rss_bytes_by_group(&processes, page_size);
            for (limit, handle) in containers {
                let used = usage.get(&limit.pid).copied().unwrap_or(0);
                if let Some(kill) = limit.check(used)
                    && handle.stop(kill.clone())
                {
                    tracing::warn!(container_id = %limit.container_id, "{}", kill.diagnostics);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resized_container_is_checked_against_its_new_limit() {
        let container_id: ContainerId = "container_1410901177871_0001_01_000005".parse().unwrap();
        let monitored = MonitoredContainers::default();
        let (handle, _control) = ContainerHandle::new(container_id, Some(4242));
        let limit = PmemLimit {
            container_id,
            pid: 4242,
            limit_mb: 1024,
        };
        monitored.add(limit, handle);
        monitored.set_limit(container_id, 512);
        let other: ContainerId = "container_1410901177871_0001_01_000006".parse().unwrap();
        monitored.set_limit(other, 1);
        let limits: Vec<_> = monitored
            .snapshot()
            .into_iter()
            .map(|(limit, _)| (limit.container_id, limit.limit_mb))
            .collect();
        assert_eq!(
            limits,
            vec![(container_id, 512)],
            "an unwatched container stays so"
        );
    }
}

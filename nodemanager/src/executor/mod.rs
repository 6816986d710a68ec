//! Container executors: how the NodeManager runs, stops, watches and re-acquires containers.
//!
//! [`ContainerExecutor`] is what the container manager holds. It is either a
//! [`ProcessExecutor`] (real processes, the default) or a [`SimulatedExecutor`] (timers, for
//! load and scale tests), as `yarn.nodemanager.container-executor.class` says. A launch takes
//! a [`LaunchSpec`] and returns a [`ContainerHandle`], through which the container is stopped
//! with a [`KillRequest`] and its [`ContainerExit`] awaited.
//!
//! ```text
//!  launch(LaunchSpec) ──> dirs, tokens, launch_container.sh ──> /bin/sh -c <wrapper> (setsid)
//!        │                 (built by LaunchScript, pure)    └─ /bin/bash launch_container.sh
//!        │                                                    └─ exec /bin/bash -c "<commands>"
//!        v
//!  ContainerHandle ──stop(KillRequest)──> ProcessSupervisor ── SIGTERM to the group,
//!        ^                                   │   ^              SIGKILL after the delay
//!        └──────── ContainerExit <───────────┘   │ stop(KILLED_EXCEEDED_PMEM)
//!                                       ContainersMonitor: RSS of each process group
//!                                       from /proc, every monitor interval
//!                                       (only for containers without a cgroup)
//!
//!  with cgroup v2: launch ──> mkdir <cgroup dir>/<container>, memory.max = allocation
//!                  child, before exec: setsid, then its pid into cgroup.procs
//!                  exit: oom_kill in memory.events > 0 ──> KILLED_EXCEEDED_PMEM; rmdir
//!
//!  reacquire(ReacquireSpec) ──> ProcessSupervisor polling the pid; the exit code comes from
//!                               the file the wrapper wrote, or the container is LOST (154)
//! ```
//!
//! Each process container's root is a small `/bin/sh` wrapper that leads the container's own
//! session and process group, runs the container's launch script with bash in a child process
//! and writes the exit code to
//! `<first local dir>/nmPrivate/<app>/<container>/<container>.pid.exitcode`, like YARN's
//! `default_container_executor.sh`, so that a restarted NodeManager learns how a re-acquired
//! container ended. The launch script is Hadoop's `launch_container.sh`, built by
//! `LaunchScript` from the launch context and `LaunchSettings` (whitelist, admin environment,
//! home directory, the JDK's `<ADD_OPENS>` options) as Hadoop's NodeManager builds it, so that
//! commands and environments written for Hadoop mean the same here.
//!
//! Memory is enforced as [`MemoryEnforcement`] decides at start-up. Where a cgroup v2
//! directory is delegated to the NodeManager ([`CgroupV2Memory`]), each container gets a child
//! cgroup whose `memory.max` the kernel enforces exactly, for every process of the container.
//! Otherwise the resident memory of each container's process group is measured in `/proc`,
//! which needs no privileges but misses processes that leave the group.

mod cgroup_v2_memory;
mod cgroup_v2_unusable;
mod container_cgroup;
mod container_control;
mod container_executor;
mod container_exit;
mod container_handle;
mod container_paths;
mod containers_monitor;
mod executor_kind;
mod io_cause;
mod kill_request;
mod launch_expansion;
mod launch_script;
mod launch_settings;
mod launch_spec;
mod memory_enforcement;
mod pmem_limit;
mod proc_stat;
mod process_executor;
mod process_outcome;
mod process_supervisor;
mod reacquire_spec;
mod signal;
mod simulated_container;
mod simulated_executor;
mod task_set;

use container_cgroup::ContainerCgroup;
use container_control::ContainerControl;
use container_paths::ContainerPaths;
use containers_monitor::{ContainersMonitor, MonitoredContainers};
use launch_script::LaunchScript;
use launch_settings::LaunchSettings;
use pmem_limit::PmemLimit;
use proc_stat::ProcStat;
use process_outcome::ProcessOutcome;
use simulated_container::SimulatedContainer;
use task_set::TaskSet;

pub use cgroup_v2_memory::CgroupV2Memory;
pub use cgroup_v2_unusable::CgroupV2Unusable;
pub use container_cgroup::join_cgroup_on_exec;
pub use container_executor::ContainerExecutor;
pub use container_exit::ContainerExit;
pub use container_handle::ContainerHandle;
pub use executor_kind::ExecutorKind;
pub use io_cause::IoCause;
pub use kill_request::KillRequest;
pub use launch_spec::LaunchSpec;
pub use memory_enforcement::MemoryEnforcement;
pub use process_executor::ProcessExecutor;
pub use process_supervisor::REACQUIRED_POLL_INTERVAL;
pub use reacquire_spec::ReacquireSpec;
pub use signal::{Signal, process_exists};
pub use simulated_executor::{SimulatedExecutor, SimulatedPrograms, SimulatedRun};

//! What the NodeManager's integration tests share: NodeManager configurations on temporary
//! directories, tokens signed as the RM signs them, polling with a deadline, and the clean-up of
//! container process groups a test leaves behind. The PKI is `yarn_test_support::pki`.

// Every integration test binary compiles this module and uses a different subset of it; what one
// binary leaves unused is used by another.
#![allow(dead_code)]

pub mod cluster;

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use yarn_conf::Configuration;
use yarn_nodemanager::container_manager::ContainerReport;
use yarn_nodemanager::executor::Signal;
use yarn_nodemanager::localizer::{LocalResource, ResourceType, ResourceVisibility};
use yarn_proto::ids::{ApplicationAttemptId, ContainerId, NodeId};
use yarn_proto::pb;
use yarn_security::{MasterKey, TokenIdentifier, TokenSecretManager};

/// The user every application of these tests runs as.
pub const USER: &str = "alice";
/// The pause between two polls.
const POLL: Duration = Duration::from_millis(20);
// Short names for the wire values the tests compare reports and statuses with.
pub const KILLED_BY_APPMASTER: i32 = pb::ContainerExitStatusProto::KilledByAppmaster as i32;
pub const GUARANTEED: pb::ExecutionTypeProto = pb::ExecutionTypeProto::Guaranteed;
pub const OPPORTUNISTIC: pb::ExecutionTypeProto = pb::ExecutionTypeProto::Opportunistic;
pub const SCHEDULED: pb::ContainerStateProto = pb::ContainerStateProto::CScheduled;
pub const RUNNING: pb::ContainerStateProto = pb::ContainerStateProto::CRunning;
pub const COMPLETE: pb::ContainerStateProto = pb::ContainerStateProto::CComplete;

/// Milliseconds since the Unix epoch, as token timestamps count them.
pub fn now_ms() -> i64 {
    let elapsed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    i64::try_from(elapsed.as_millis()).unwrap()
}

/// `p` as the string a configuration value needs.
pub fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 temporary path").to_owned()
}

pub use yarn_test_support::poll::eventually;

/// A NodeManager configuration whose local, log and recovery directories lie under `dir`.
pub fn node_dirs_conf(dir: &Path) -> Configuration {
    let mut conf = Configuration::new();
    conf.set("yarn.nodemanager.local-dirs", &path(&dir.join("local")));
    conf.set("yarn.nodemanager.log-dirs", &path(&dir.join("logs")));
    conf.set(
        "yarn.nodemanager.recovery.dir",
        &path(&dir.join("recovery")),
    );
    conf
}

/// [`node_dirs_conf`] with recovery on, `memory_mb` MB and `vcores` vcores, an opportunistic
/// queue of `queue_length`, a short stop delay and no memory check: a node whose containers are
/// real processes that a test can stop quickly.
pub fn recoverable_node_conf(
    dir: &Path,
    memory_mb: u64,
    vcores: u32,
    queue_length: u32,
) -> Configuration {
    let mut conf = node_dirs_conf(dir);
    conf.set("yarn.nodemanager.recovery.enabled", "true");
    conf.set(
        "yarn.nodemanager.resource.memory-mb",
        &memory_mb.to_string(),
    );
    conf.set("yarn.nodemanager.resource.cpu-vcores", &vcores.to_string());
    conf.set(
        "yarn.nodemanager.opportunistic-containers-max-queue-length",
        &queue_length.to_string(),
    );
    conf.set("yarn.nodemanager.sleep-delay-before-sigkill.ms", "200");
    conf.set("yarn.nodemanager.pmem-check-enabled", "false");
    conf
}

/// A container token identifier as the RM of `rm_epoch` issues it: for `node`, [`USER`], one
/// vcore and `memory_mb` MB, valid for ten minutes.
pub fn container_token_identifier(
    container_id: ContainerId,
    node: &NodeId,
    rm_epoch: i64,
    memory_mb: i64,
    execution_type: pb::ExecutionTypeProto,
) -> pb::ContainerTokenIdentifierProto {
    pb::ContainerTokenIdentifierProto {
        container_id: Some(container_id.into()),
        nm_host_addr: node.to_string(),
        app_submitter: USER.to_owned(),
        resource: Some(pb::ResourceProto {
            memory: memory_mb,
            virtual_cores: 1,
            ..Default::default()
        }),
        expiry_time_stamp: now_ms() + 600_000,
        rm_identifier: rm_epoch,
        creation_time: now_ms(),
        execution_type: execution_type.into(),
        ..Default::default()
    }
}

/// The NM token identifier of `attempt`, run by [`USER`], for `node`.
pub fn nm_token_identifier(
    attempt: ApplicationAttemptId,
    node: &NodeId,
) -> pb::NmTokenIdentifierProto {
    pb::NmTokenIdentifierProto {
        app_attempt_id: Some(attempt.into()),
        node_id: Some(node.into()),
        app_submitter: USER.to_owned(),
        ..Default::default()
    }
}

/// `identifier` signed under `key` as a token for the service `node`, in its wire form.
pub fn sign<I: TokenIdentifier>(key: &MasterKey, node: &NodeId, identifier: I) -> pb::TokenProto {
    TokenSecretManager::<I>::new(key.clone())
        .sign(identifier, node.to_string())
        .into()
}

/// The start of a container running `command`, under `container_token`.
pub fn launch(container_token: pb::TokenProto, command: &str) -> pb::StartContainerRequestProto {
    pb::StartContainerRequestProto {
        container_launch_context: Some(pb::ContainerLaunchContextProto {
            commands: vec![command.to_owned()],
            ..Default::default()
        }),
        container_token: Some(container_token),
    }
}

/// An APPLICATION-visibility FILE resource for `path` as a client describes it: its `file:`
/// URL, length and modification time (0 and 0 for a file that does not exist).
pub fn local_file(path: &Path) -> LocalResource {
    let metadata = std::fs::metadata(path).ok();
    LocalResource {
        url: format!("file:{}", path.display()),
        size: metadata
            .as_ref()
            .map_or(0, |metadata| i64::try_from(metadata.len()).unwrap()),
        timestamp_ms: metadata
            .and_then(|metadata| metadata.modified().ok())
            .map_or(0, |modified| {
                i64::try_from(
                    modified
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_millis(),
                )
                .unwrap()
            }),
        resource_type: ResourceType::File,
        visibility: ResourceVisibility::Application,
        pattern: String::new(),
    }
}

/// Whether `pid` is a live process leading its own process group, as a container's root is.
pub fn leads_running_group(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // After the command name in parentheses: state, ppid, pgrp.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    fields.first().is_some_and(|state| *state != "Z")
        && fields.get(2) == Some(&pid.to_string().as_str())
}

/// Polls until the process group led by `pid` has no live leader, for at most `within`.
pub async fn group_ends(what: &str, pid: u32, within: Duration) {
    eventually(what, within, || async {
        (!leads_running_group(pid)).then_some(())
    })
    .await;
}

/// The root pids of the containers a test saw running. When dropped it kills each of their
/// process groups that still has a live leader, so that a failed test leaves no process behind.
#[derive(Default)]
pub struct ContainerGroups {
    pids: Mutex<Vec<u32>>,
}

impl ContainerGroups {
    /// Remembers the root pid `report` shows, if any.
    pub fn note(&self, report: &ContainerReport) {
        if let Some(pid) = report.pid {
            self.note_pid(pid);
        }
    }

    /// Remembers the root pid of a container.
    pub fn note_pid(&self, pid: u32) {
        let mut pids = self.pids.lock().unwrap();
        if !pids.contains(&pid) {
            pids.push(pid);
        }
    }
}

impl Drop for ContainerGroups {
    fn drop(&mut self) {
        for &pid in self.pids.lock().unwrap().iter() {
            if leads_running_group(pid) {
                // A group that ended since the check is what this clean-up wants anyway.
                let _ = Signal::Kill.send_to_group(pid);
            }
        }
    }
}

//! The container executors against real processes: exit codes, logs and environment, stops
//! with SIGTERM then SIGKILL, the memory kill, re-acquisition after a restart, and simulated
//! containers. Every wait is bounded; nothing about real processes asserts on timings. Simulated
//! containers are timers and nothing else, so their tests run on tokio's paused clock and time
//! them exactly.
//!
//! cgroup v2 memory limits run against a stand-in cgroup tree in a temporary directory: plain
//! files where cgroupfs has interface files, so the kernel enforces nothing and the tests play
//! its part (writing `memory.events`, killing the process).

mod common;

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tempfile::TempDir;
use tokio::time::Instant;
use yarn_nodemanager::executor::{
    CgroupV2Unusable, ContainerExit, ContainerHandle, KillRequest, LaunchSpec, MemoryEnforcement,
    ReacquireSpec, Signal, SimulatedExecutor,
};
use yarn_nodemanager::{ContainerExecutor, Error, NmConfig};
use yarn_proto::ids::ContainerId;

/// Longest any container in these tests may take to do what the test waits for.
const DEADLINE: Duration = Duration::from_secs(10);
const KILLED_BY_APPMASTER: i32 = -105;
const KILLED_EXCEEDED_PMEM: i32 = -104;
const APP: &str = "application_1700000000000_0001";

/// A NodeManager's directories in a temporary directory, with a short stop delay and monitor
/// interval so that the tests run quickly.
struct Node {
    dir: TempDir,
    config: NmConfig,
}

impl Node {
    fn new(executor_class: &str) -> Self {
        Self::with_settings(executor_class, &[])
    }

    /// A node with extra `yarn-site.xml` settings; `{dir}` in a value stands for the node's
    /// temporary directory.
    fn with_settings(executor_class: &str, settings: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut conf = common::node_dirs_conf(dir.path());
        conf.set("yarn.nodemanager.sleep-delay-before-sigkill.ms", "200");
        conf.set("yarn.nodemanager.container-monitor.interval-ms", "50");
        conf.set("yarn.nodemanager.container-executor.class", executor_class);
        for (key, value) in settings {
            let value = value.replace("{dir}", &dir.path().display().to_string());
            conf.set(key, &value);
        }
        let config = NmConfig::from_conf(&conf).unwrap();
        Self { dir, config }
    }

    /// A process-executor node whose cgroup is a stand-in cgroup v2 directory `<dir>/cgroup/
    /// hadoop-yarn` listing `controllers` in `cgroup.controllers` and `subtree_control` in
    /// `cgroup.subtree_control`, and nothing else.
    fn with_fake_cgroup(controllers: &str, subtree_control: &str, required: bool) -> Self {
        let node = Self::with_settings(
            "default",
            &[
                (
                    "yarn.nodemanager.linux-container-executor.cgroups.mount-path",
                    "{dir}/cgroup",
                ),
                (
                    "yarn.nodemanager.linux-container-executor.cgroups.hierarchy",
                    "/hadoop-yarn",
                ),
                (
                    "yarn.nodemanager.resource.memory.enabled",
                    if required { "true" } else { "false" },
                ),
            ],
        );
        let cgroup = node.cgroup_dir();
        std::fs::create_dir_all(&cgroup).unwrap();
        std::fs::write(cgroup.join("cgroup.controllers"), controllers).unwrap();
        std::fs::write(cgroup.join("cgroup.subtree_control"), subtree_control).unwrap();
        node
    }

    fn cgroup_dir(&self) -> PathBuf {
        self.dir.path().join("cgroup/hadoop-yarn")
    }

    fn executor(&self) -> ContainerExecutor {
        ContainerExecutor::new(&self.config)
    }

    fn work_dir(&self, container_id: ContainerId) -> PathBuf {
        self.dir.path().join(format!(
            "local/usercache/alice/appcache/{APP}/{container_id}"
        ))
    }

    fn log_dir(&self, container_id: ContainerId) -> PathBuf {
        self.dir.path().join(format!("logs/{APP}/{container_id}"))
    }
}

fn container(sequence: u32) -> ContainerId {
    format!("container_1700000000000_0001_01_{sequence:06}")
        .parse()
        .unwrap()
}

/// `command` as a Hadoop application writes it into a launch context: `\`, `"`, `$` and `` ` ``
/// escaped for the double quotes of the launch script's `exec /bin/bash -c "..."` (as Spark
/// escapes its commands), and its output sent to `stdout` and `stderr` in the log directory.
fn hadoop_command(command: &str) -> String {
    let mut escaped = String::with_capacity(command.len());
    for c in command.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    format!("{{ {escaped}\n}} 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr")
}

fn spec(container_id: ContainerId, command: &str, memory_mb: u64) -> LaunchSpec {
    LaunchSpec {
        container_id,
        user: "alice".into(),
        commands: vec![hadoop_command(command)],
        environment: HashMap::from([("GREETING".to_owned(), "hello from <LOG_DIR>".to_owned())]),
        memory_mb,
        nm_host: "node7.example.com".into(),
        nm_port: 45454,
        nm_http_port: 8042,
        tokens: Vec::new(),
        local_resources: std::collections::BTreeMap::new(),
    }
}

async fn must_launch(executor: &ContainerExecutor, spec: LaunchSpec) -> ContainerHandle {
    executor.launch(spec).await.unwrap()
}

async fn must_exit(handle: &ContainerHandle) -> ContainerExit {
    tokio::time::timeout(DEADLINE, handle.wait())
        .await
        .expect("container did not exit in time")
        .unwrap()
}

/// Polls until `path` holds `text`, so that a test acts only once the container got going.
async fn must_see(path: &Path, text: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let content = std::fs::read_to_string(path).unwrap_or_default();
        if content.contains(text) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} never held {text:?}: {content:?}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Polls until no process of group `pgid` is running. Zombies do not count: once the
/// container's root has ended they belong to init, which reaps them when it gets to it.
async fn must_vanish(pgid: u32) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let running: Vec<u32> = running_pids_of_group(pgid);
        if running.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes {running:?} of group {pgid} outlived their container"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The non-zombie processes of group `pgid`, from `/proc/<pid>/stat`: the state is the first
/// field after the parenthesised command name, the process group the third.
fn running_pids_of_group(pgid: u32) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, fields)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = fields.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string() {
            pids.push(pid);
        }
    }
    pids
}

#[tokio::test]
async fn the_exit_code_of_a_failing_command_is_reported() {
    let node = Node::new("default");
    let executor = node.executor();
    let handle = must_launch(&executor, spec(container(1), "exit 3", 64)).await;
    assert!(handle.pid().is_some());

    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, 3);
    assert!(
        exit.diagnostics.contains("non-zero exit code 3"),
        "{}",
        exit.diagnostics
    );
    assert_eq!(handle.try_exit(), Some(exit));
    assert!(!handle.stop(KillRequest::new(KILLED_BY_APPMASTER, "too late")));
}

#[tokio::test]
async fn a_container_reads_its_localized_file_through_its_link() {
    let node = Node::new("default");
    let executor = node.executor();
    let source = node.dir.path().join("__app__.jar");
    std::fs::write(&source, "localized content").unwrap();
    let mut spec = spec(container(1), "cat __app__.jar 1><LOG_DIR>/stdout", 64);
    spec.local_resources =
        std::collections::BTreeMap::from([("__app__.jar".to_owned(), common::local_file(&source))]);
    let handle = must_launch(&executor, spec).await;

    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, 0, "{}", exit.diagnostics);
    let stdout = std::fs::read_to_string(node.log_dir(container(1)).join("stdout")).unwrap();
    assert_eq!(stdout, "localized content");
}

#[tokio::test]
async fn a_resource_that_cannot_be_localized_fails_the_launch_naming_it() {
    let node = Node::new("default");
    let executor = node.executor();
    let mut spec = spec(container(1), "true", 64);
    let mut resource = common::local_file(&node.dir.path().join("missing.jar"));
    resource.url = "hdfs://namenode:8020/user/alice/app.jar".to_owned();
    spec.local_resources = std::collections::BTreeMap::from([("app.jar".to_owned(), resource)]);
    let err = executor.launch(spec).await.unwrap_err();

    assert!(
        matches!(&err, Error::Localization { container_id, .. } if *container_id == container(1)),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("\"app.jar\"") && message.contains("scheme \"hdfs\""),
        "{message}"
    );
    assert!(
        !node
            .work_dir(container(1))
            .join("launch_container.sh")
            .exists()
    );
}

#[tokio::test]
async fn output_lands_in_the_log_dir_and_the_container_sees_yarns_variables() {
    let node = Node::new("default");
    let executor = node.executor();
    let id = container(2);
    let command = "echo \"id=$CONTAINER_ID nm=$NM_HOST:$NM_PORT http=$NM_HTTP_PORT user=$USER\"; \
                   echo \"pwd=$(pwd) PWD=$PWD home=$HOME\"; \
                   echo \"local=$LOCAL_DIRS users=$LOCAL_USER_DIRS logs=$LOG_DIRS\"; \
                   echo \"greeting=$GREETING\"; echo oops >&2; echo extra > <LOG_DIR>/extra.log; \
                   test -d tmp && test \"$JVM_PID\" = $$ || exit 8";
    let handle = must_launch(&executor, spec(id, command, 64)).await;
    let exit = must_exit(&handle).await;
    assert_eq!(
        exit,
        ContainerExit {
            exit_code: 0,
            diagnostics: String::new()
        }
    );

    let log_dir = node.log_dir(id);
    let work_dir = node.work_dir(id);
    let stdout = std::fs::read_to_string(log_dir.join("stdout")).unwrap();
    let stderr = std::fs::read_to_string(log_dir.join("stderr")).unwrap();
    assert!(
        stdout.contains(&format!(
            "id={id} nm=node7.example.com:45454 http=8042 user=alice"
        )),
        "{stdout}"
    );
    let work = work_dir.display();
    assert!(
        stdout.contains(&format!("pwd={work} PWD={work} home=/home/")),
        "{stdout}"
    );
    let app_dir = work_dir.parent().unwrap();
    let user_dir = app_dir.parent().unwrap().parent().unwrap();
    assert!(
        stdout.contains(&format!(
            "local={} users={}/ logs={}",
            app_dir.display(),
            user_dir.display(),
            log_dir.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("greeting=hello from {}", log_dir.display())),
        "{stdout}"
    );
    assert_eq!(stderr, "oops\n");
    assert_eq!(
        std::fs::read_to_string(log_dir.join("extra.log")).unwrap(),
        "extra\n"
    );
}

#[tokio::test]
async fn environment_values_are_expanded_and_refer_to_each_other_as_in_hadoop() {
    let node = Node::new("default");
    let executor = node.executor();
    let id = container(33);
    let mut spec = spec(id, "echo \"$CLASSPATH|$OPTS\"", 64);
    spec.environment.extend([
        (
            "CLASSPATH".to_owned(),
            "{{PWD}}<CPS>{{PWD}}/lib/*<CPS>$EXTRA".to_owned(),
        ),
        ("EXTRA".to_owned(), "${HOME}extra.jar".to_owned()),
        (
            "OPTS".to_owned(),
            "-Dlog=<LOG_DIR> -Dpid=$JVM_PID".to_owned(),
        ),
    ]);
    let handle = must_launch(&executor, spec).await;
    let pid = handle.pid().unwrap();
    assert_eq!(must_exit(&handle).await.exit_code, 0);
    let stdout = std::fs::read_to_string(node.log_dir(id).join("stdout")).unwrap();
    let work = node.work_dir(id).display().to_string();
    let log_dir = node.log_dir(id).display().to_string();
    // JVM_PID is the pid of the launch script's shell, which the wrapper started.
    let (classpath, opts) = stdout.trim_end().split_once('|').unwrap();
    assert_eq!(classpath, format!("{work}:{work}/lib/*:/home/extra.jar"));
    let pid_option = opts
        .strip_prefix(&format!("-Dlog={log_dir} -Dpid="))
        .unwrap();
    let script_pid: u32 = pid_option.parse().unwrap();
    assert_ne!(
        script_pid, pid,
        "the wrapper leads the group; the script is its child"
    );
}

#[tokio::test]
async fn a_container_with_tokens_reads_them_from_its_token_file() {
    let node = Node::new("default");
    let executor = node.executor();
    let id = container(30);
    // Every byte value, NUL and invalid UTF-8 included: the file must hold the bytes unchanged.
    let tokens: Vec<u8> = (0..=255).collect();
    let mut spec = spec(
        id,
        "cat \"$HADOOP_TOKEN_FILE_LOCATION\" > seen_tokens; \
         echo \"location=$HADOOP_TOKEN_FILE_LOCATION\"",
        64,
    );
    spec.tokens = tokens.clone();
    // The NodeManager's variable wins over one the launch context sets.
    spec.environment.insert(
        "HADOOP_TOKEN_FILE_LOCATION".to_owned(),
        "/nowhere".to_owned(),
    );
    let handle = must_launch(&executor, spec).await;
    assert_eq!(must_exit(&handle).await.exit_code, 0);

    let work_dir = node.work_dir(id);
    let token_file = work_dir.join("container_tokens");
    assert_eq!(std::fs::read(work_dir.join("seen_tokens")).unwrap(), tokens);
    let stdout = std::fs::read_to_string(node.log_dir(id).join("stdout")).unwrap();
    assert_eq!(stdout, format!("location={}\n", token_file.display()));
    assert!(token_file.is_absolute());
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
}

#[tokio::test]
async fn a_container_without_tokens_gets_empty_hadoop_credentials() {
    let node = Node::new("default");
    let executor = node.executor();
    let id = container(31);
    let command = "test \"$HADOOP_TOKEN_FILE_LOCATION\" = \"$PWD/container_tokens\" || exit 9";
    let handle = must_launch(&executor, spec(id, command, 64)).await;
    assert_eq!(must_exit(&handle).await.exit_code, 0);
    assert_eq!(
        std::fs::read(node.work_dir(id).join("container_tokens")).unwrap(),
        b"HDTS\0\0\0"
    );
}

#[tokio::test]
async fn a_container_gets_nothing_of_the_nodemanagers_environment_but_the_whitelist() {
    // The test process's environment is the NodeManager's; cargo sets CARGO_* in it.
    let node = Node::with_settings(
        "default",
        &[("yarn.nodemanager.env-whitelist", "CARGO_PKG_NAME,PATH")],
    );
    let executor = node.executor();
    let id = container(32);
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let command = "test -z \"${CARGO_MANIFEST_DIR+set}\" || exit 9; \
                   test \"$CARGO_PKG_NAME\" = yarn-nodemanager || exit 10; \
                   test \"$MALLOC_ARENA_MAX\" = \"$EXPECTED_MALLOC_ARENA_MAX\" || exit 11";
    let mut spec = spec(id, command, 64);
    // The admin environment's default takes the NodeManager's value, if any.
    spec.environment.insert(
        "EXPECTED_MALLOC_ARENA_MAX".to_owned(),
        std::env::var("MALLOC_ARENA_MAX").unwrap_or_default(),
    );
    let handle = must_launch(&executor, spec).await;
    assert_eq!(must_exit(&handle).await.exit_code, 0);
    let script = std::fs::read_to_string(node.work_dir(id).join("launch_container.sh")).unwrap();
    assert!(script.starts_with("#!/bin/bash\n"), "{script}");
    // As under Hadoop's DefaultContainerExecutor, PATH is exported only if bash has none of its
    // own; bash always has, so containers search bash's default PATH.
    assert!(script.contains("export PATH=${PATH:-\""), "{script}");
}

#[tokio::test]
async fn a_stop_ends_a_container_that_obeys_sigterm_without_sigkill() {
    let node = Node::new("default");
    let executor = node.executor();
    let id = container(3);
    let handle = must_launch(&executor, spec(id, "echo ready; sleep 30", 64)).await;
    must_see(&node.log_dir(id).join("stdout"), "ready").await;

    assert!(handle.stop(KillRequest::new(
        KILLED_BY_APPMASTER,
        "Container killed by the ApplicationMaster."
    )));
    assert!(!handle.stop(KillRequest::new(-106, "a second stop does not count")));
    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, KILLED_BY_APPMASTER);
    assert!(
        exit.diagnostics
            .starts_with("Container killed by the ApplicationMaster.\n"),
        "{}",
        exit.diagnostics
    );
    assert!(exit.diagnostics.contains("143"), "{}", exit.diagnostics);
    assert!(
        !exit.diagnostics.contains("SIGKILL"),
        "{}",
        exit.diagnostics
    );
    must_vanish(handle.pid().unwrap()).await;
}

#[tokio::test]
async fn a_container_that_ignores_sigterm_is_killed_with_sigkill_after_the_delay() {
    let node = Node::new("default");
    let executor = node.executor();
    let id = container(4);
    let command = "trap '' TERM; echo ready; sleep 30";
    let handle = must_launch(&executor, spec(id, command, 64)).await;
    must_see(&node.log_dir(id).join("stdout"), "ready").await;

    assert!(handle.stop(KillRequest::new(KILLED_BY_APPMASTER, "stop")));
    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, KILLED_BY_APPMASTER);
    assert!(exit.diagnostics.contains("SIGKILL"), "{}", exit.diagnostics);
    assert!(
        exit.diagnostics
            .contains(&ContainerExit::FORCE_KILLED.to_string()),
        "{}",
        exit.diagnostics
    );
    // The `sleep` ignoring SIGTERM was in the group too.
    must_vanish(handle.pid().unwrap()).await;
}

#[tokio::test]
async fn a_container_beyond_its_memory_is_killed_with_the_pmem_diagnostic() {
    let node = Node::new("default");
    let executor = node.executor();
    // `tail` keeps a whole line in memory, and /dev/zero has no newline: about 100 MB resident
    // until the input ends 30 s later, far beyond the 16 MB allocation.
    let command = "{ head -c 100000000 /dev/zero; sleep 30; } | tail > /dev/null";
    let handle = must_launch(&executor, spec(container(5), command, 16)).await;

    let exit = must_exit(&handle).await;
    let pid = handle.pid().unwrap();
    assert_eq!(exit.exit_code, KILLED_EXCEEDED_PMEM);
    let expected = format!(
        "Container [pid={pid},containerID={}] is running beyond physical memory limits. \
         Current usage: ",
        container(5)
    );
    assert!(
        exit.diagnostics.starts_with(&expected),
        "{}",
        exit.diagnostics
    );
    assert!(
        exit.diagnostics
            .contains(" MB of 16 MB physical memory used. Killing container."),
        "{}",
        exit.diagnostics
    );
    must_vanish(pid).await;
}

#[tokio::test]
async fn a_container_within_its_memory_is_left_alone() {
    let node = Node::new("default");
    let executor = node.executor();
    let id = container(6);
    // Runs across several monitor passes (every 50 ms) with a few MB resident.
    let command = "i=0; while [ $i -lt 20 ]; do sleep 0.02; i=$((i+1)); done; echo done";
    let handle = must_launch(&executor, spec(id, command, 256)).await;
    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, 0, "{}", exit.diagnostics);
    must_see(&node.log_dir(id).join("stdout"), "done").await;
}

#[tokio::test]
async fn a_container_reacquired_after_a_restart_reports_its_later_exit_code() {
    let node = Node::new("default");
    let id = container(7);
    let command = "echo ready; while [ ! -e release ]; do sleep 0.02; done; exit 7";
    let pid = {
        let before_restart = node.executor();
        let handle = must_launch(&before_restart, spec(id, command, 64)).await;
        must_see(&node.log_dir(id).join("stdout"), "ready").await;
        handle.pid().unwrap()
        // The executor is dropped here, as when the NodeManager dies; the container lives on.
    };

    let after_restart = node.executor();
    let handle = after_restart
        .reacquire(ReacquireSpec {
            container_id: id,
            pid,
            memory_mb: 64,
        })
        .unwrap();
    assert_eq!(handle.pid(), Some(pid));
    assert_eq!(handle.try_exit(), None, "the container is still waiting");

    std::fs::write(node.work_dir(id).join("release"), "").unwrap();
    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, 7);
    assert!(
        exit.diagnostics.contains("exit code 7"),
        "{}",
        exit.diagnostics
    );
}

#[tokio::test]
async fn a_reacquired_container_that_leaves_no_exit_code_is_reported_lost() {
    let node = Node::new("default");
    let executor = node.executor();
    let release = node.dir.path().join("release");
    // A process group leader that no wrapper of ours started, so no exit code file appears.
    let mut process = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "while [ ! -e '{}' ]; do sleep 0.02; done",
            release.display()
        ))
        .process_group(0)
        .spawn()
        .unwrap();
    let handle = executor
        .reacquire(ReacquireSpec {
            container_id: container(8),
            pid: process.id(),
            memory_mb: 0,
        })
        .unwrap();
    assert_eq!(handle.try_exit(), None);

    std::fs::write(&release, "").unwrap();
    let exit = must_exit(&handle).await;
    process.wait().unwrap();
    assert_eq!(exit.exit_code, ContainerExit::LOST);
    assert!(
        exit.diagnostics.contains("reported as lost"),
        "{}",
        exit.diagnostics
    );
    assert!(
        exit.diagnostics.contains(".pid.exitcode"),
        "{}",
        exit.diagnostics
    );
}

#[tokio::test]
async fn a_pid_now_outside_its_own_process_group_is_not_taken_for_the_container() {
    let node = Node::new("default");
    let executor = node.executor();
    // In this test's process group, as a reused pid would be in some unrelated group.
    let mut process = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let handle = executor
        .reacquire(ReacquireSpec {
            container_id: container(9),
            pid: process.id(),
            memory_mb: 64,
        })
        .unwrap();
    let exit = handle.try_exit().expect("reported at once");
    assert_eq!(exit.exit_code, ContainerExit::LOST);
    assert!(exit.diagnostics.contains("reused"), "{}", exit.diagnostics);
    // Stopping the lost container must not touch the unrelated process.
    assert!(!handle.stop(KillRequest::new(KILLED_BY_APPMASTER, "stop")));
    assert_eq!(process.try_wait().unwrap(), None);
    process.kill().unwrap();
    process.wait().unwrap();
}

#[tokio::test]
async fn invalid_pids_are_refused() {
    let node = Node::new("default");
    let executor = node.executor();
    for pid in [0, 1, u32::MAX] {
        let err = executor
            .reacquire(ReacquireSpec {
                container_id: container(10),
                pid,
                memory_mb: 0,
            })
            .unwrap_err();
        assert_eq!(
            err,
            Error::InvalidContainerPid {
                container_id: container(10),
                pid
            }
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_simulated_container_runs_for_its_duration_and_exits_with_0() {
    let node = Node::new("simulated");
    let executor = node.executor();
    assert!(matches!(executor, ContainerExecutor::Simulated(_)));
    let mut spec = spec(container(11), "this never runs", 64);
    spec.environment.insert(
        SimulatedExecutor::SIMULATED_DURATION_ENV.to_owned(),
        "20".to_owned(),
    );
    let launched = Instant::now();
    let handle = must_launch(&executor, spec).await;
    assert_eq!(handle.pid(), None);
    tokio::time::sleep(Duration::from_millis(19)).await;
    assert_eq!(handle.try_exit(), None, "still running 1 ms before its end");
    let exit = must_exit(&handle).await;
    assert_eq!(launched.elapsed(), Duration::from_millis(20));
    assert_eq!(
        exit,
        ContainerExit {
            exit_code: 0,
            diagnostics: String::new()
        }
    );
    assert!(
        !node.dir.path().join("local").exists(),
        "no files for simulated containers"
    );
}

#[tokio::test(start_paused = true)]
async fn a_simulated_container_can_be_stopped_early() {
    let node = Node::new("simulated");
    let executor = node.executor();
    let mut spec = spec(container(12), "", 64);
    spec.environment.insert(
        SimulatedExecutor::SIMULATED_DURATION_ENV.to_owned(),
        "600000".to_owned(),
    );
    let launched = Instant::now();
    let handle = must_launch(&executor, spec).await;
    assert_eq!(handle.try_exit(), None);
    assert!(handle.stop(KillRequest::new(
        KILLED_BY_APPMASTER,
        "Container killed by the ApplicationMaster."
    )));
    let exit = must_exit(&handle).await;
    assert_eq!(
        launched.elapsed(),
        Duration::ZERO,
        "ended by the stop, at once"
    );
    assert_eq!(exit.exit_code, KILLED_BY_APPMASTER);
    assert_eq!(
        exit.diagnostics,
        "Container killed by the ApplicationMaster."
    );

    let lost = executor
        .reacquire(ReacquireSpec {
            container_id: container(12),
            pid: 4242,
            memory_mb: 64,
        })
        .unwrap();
    assert_eq!(lost.try_exit().unwrap().exit_code, ContainerExit::LOST);
}

#[tokio::test]
async fn a_simulated_duration_that_is_not_a_number_is_refused_naming_the_variable() {
    let node = Node::new("simulated");
    let executor = node.executor();
    let mut spec = spec(container(13), "", 64);
    spec.environment.insert(
        SimulatedExecutor::SIMULATED_DURATION_ENV.to_owned(),
        "soon".to_owned(),
    );
    let err = executor.launch(spec).await.unwrap_err().to_string();
    assert!(
        err.contains("YARN_HA_SIMULATED_DURATION_MS") && err.contains("soon"),
        "{err}"
    );
}

#[tokio::test]
async fn waiting_on_a_container_whose_executor_was_dropped_is_an_error() {
    let node = Node::new("simulated");
    let executor = node.executor();
    let handle = must_launch(&executor, spec(container(14), "", 64)).await;
    drop(executor);
    let err = tokio::time::timeout(DEADLINE, handle.wait())
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(
        err,
        Error::ExecutorStopped {
            container_id: container(14)
        }
    );
}

#[tokio::test]
async fn a_container_runs_in_its_own_cgroup_and_an_oom_kill_reports_exceeded_pmem() {
    let node = Node::with_fake_cgroup("cpu memory pids\n", "memory\n", false);
    let executor = ContainerExecutor::try_new(&node.config).unwrap();
    let id = container(15);
    let cgroup = node.cgroup_dir().join(id.to_string());
    assert!(!cgroup.exists());

    let handle = must_launch(&executor, spec(id, "echo ready; sleep 30", 16)).await;
    let pid = handle.pid().unwrap();
    must_see(&node.log_dir(id).join("stdout"), "ready").await;
    assert_eq!(
        std::fs::read_to_string(cgroup.join("memory.max")).unwrap(),
        (16 * 1024 * 1024).to_string()
    );
    // Written by the child itself between fork and exec, so the pid is the container's root.
    assert_eq!(
        std::fs::read_to_string(cgroup.join("cgroup.procs")).unwrap(),
        pid.to_string()
    );

    // What the kernel does to a container beyond its memory.max with memory.oom.group set.
    std::fs::write(cgroup.join("memory.events"), "oom 1\noom_kill 1\n").unwrap();
    Signal::Kill.send(pid).unwrap();
    let exit = must_exit(&handle).await;
    assert_eq!(
        exit,
        ContainerExit {
            exit_code: KILLED_EXCEEDED_PMEM,
            diagnostics: format!(
                "Container [pid={pid},containerID={id}] was killed by the kernel for exceeding \
                 its cgroup memory.max of 16 MB (cgroup {}, 1 OOM kill(s) in memory.events).",
                cgroup.display()
            ),
        }
    );
    must_vanish(pid).await;
    // The stand-in cgroup holds plain files, so removal leaves it; cgroupfs would remove it.
}

#[tokio::test]
async fn a_container_with_a_cgroup_is_left_to_the_kernel_not_to_the_resident_memory_check() {
    let node = Node::with_fake_cgroup("cpu memory pids\n", "memory\n", false);
    let executor = ContainerExecutor::try_new(&node.config).unwrap();
    // About 50 MB resident for a second, over many 50 ms monitor passes, with 16 MB allocated:
    // the resident-memory check would kill it, and the stand-in cgroup enforces nothing.
    let command = "{ head -c 50000000 /dev/zero; sleep 1; } | tail > /dev/null";
    let handle = must_launch(&executor, spec(container(16), command, 16)).await;
    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, 0, "{}", exit.diagnostics);
}

#[tokio::test]
async fn a_container_that_fails_by_itself_in_its_cgroup_reports_its_own_exit() {
    let node = Node::with_fake_cgroup("cpu memory pids\n", "memory\n", false);
    let executor = ContainerExecutor::try_new(&node.config).unwrap();
    let handle = must_launch(&executor, spec(container(17), "exit 3", 16)).await;
    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, 3, "no OOM kill was recorded");
}

#[tokio::test]
async fn a_reacquired_container_keeps_its_cgroup_for_the_oom_verdict() {
    let node = Node::with_fake_cgroup("memory\n", "memory\n", true);
    let id = container(18);
    let pid = {
        let before_restart = ContainerExecutor::try_new(&node.config).unwrap();
        let handle = must_launch(&before_restart, spec(id, "echo ready; sleep 30", 32)).await;
        must_see(&node.log_dir(id).join("stdout"), "ready").await;
        handle.pid().unwrap()
    };

    // Stored at 48 MB: a resize stored before the restart, whose limit was never written.
    let after_restart = ContainerExecutor::try_new(&node.config).unwrap();
    let handle = after_restart
        .reacquire(ReacquireSpec {
            container_id: id,
            pid,
            memory_mb: 48,
        })
        .unwrap();
    let cgroup = node.cgroup_dir().join(id.to_string());
    let wanted = (48u64 * 1024 * 1024).to_string();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(cgroup.join("memory.max")).unwrap_or_default() != wanted {
        assert!(
            tokio::time::Instant::now() < deadline,
            "memory.max was not restored"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    std::fs::write(cgroup.join("memory.events"), "oom_kill 2\n").unwrap();
    Signal::Kill.send(pid).unwrap();
    let exit = must_exit(&handle).await;
    assert_eq!(exit.exit_code, KILLED_EXCEEDED_PMEM, "{}", exit.diagnostics);
    assert!(
        exit.diagnostics.contains(&format!(
            "memory.max of 48 MB (cgroup {}, 2 OOM kill(s)",
            cgroup.display()
        )),
        "{}",
        exit.diagnostics
    );
    must_vanish(pid).await;
}

#[tokio::test]
async fn memory_not_yet_enabled_for_children_is_enabled_by_the_nodemanager() {
    let node = Node::with_fake_cgroup("cpu memory\n", "cpu\n", true);
    let enforcement = MemoryEnforcement::detect(&node.config).unwrap();
    assert_eq!(
        enforcement.cgroup_v2().map(|memory| memory.dir()),
        Some(node.cgroup_dir().as_path())
    );
    assert_eq!(
        std::fs::read_to_string(node.cgroup_dir().join("cgroup.subtree_control")).unwrap(),
        "+memory"
    );
}

#[tokio::test]
async fn a_cgroup_without_the_memory_controller_is_not_used() {
    // Auto: the resident-memory check takes over, and no container cgroup is made.
    let node = Node::with_fake_cgroup("cpu pids\n", "\n", false);
    assert_eq!(
        MemoryEnforcement::detect(&node.config).unwrap(),
        MemoryEnforcement::ResidentMemory {
            cgroup_v2_unusable: CgroupV2Unusable::MemoryControllerMissing {
                path: node.cgroup_dir(),
                controllers: "cpu pids".to_owned(),
            }
        }
    );
    let executor = ContainerExecutor::try_new(&node.config).unwrap();
    let handle = must_launch(&executor, spec(container(19), "exit 0", 16)).await;
    assert_eq!(must_exit(&handle).await.exit_code, 0);
    let entries: Vec<_> = std::fs::read_dir(node.cgroup_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(
        entries.len(),
        2,
        "only the stand-in's own files: {entries:?}"
    );

    // Required: the NodeManager does not start, and says where and what is missing.
    let node = Node::with_fake_cgroup("cpu pids\n", "\n", true);
    let expected = Error::CgroupMemoryUnavailable {
        reason: CgroupV2Unusable::MemoryControllerMissing {
            path: node.cgroup_dir(),
            controllers: "cpu pids".to_owned(),
        },
    };
    let err = ContainerExecutor::try_new(&node.config).unwrap_err();
    assert_eq!(err, expected);
    let text = err.to_string();
    assert!(
        text.contains(&node.cgroup_dir().display().to_string())
            && text.contains("memory controller is not available"),
        "{text}"
    );
    // The infallible constructor refuses each launch with the same error instead.
    let executor = ContainerExecutor::new(&node.config);
    let err = executor
        .launch(spec(container(20), "exit 0", 16))
        .await
        .unwrap_err();
    assert_eq!(err, expected);
}

#[tokio::test]
async fn a_missing_cgroup_required_by_configuration_is_named_in_the_error() {
    let node = Node::with_settings(
        "default",
        &[
            (
                "yarn.nodemanager.linux-container-executor.cgroups.mount-path",
                "{dir}/no-cgroup-here",
            ),
            ("yarn.nodemanager.resource.memory.enabled", "true"),
        ],
    );
    let err = ContainerExecutor::try_new(&node.config).unwrap_err();
    assert_eq!(
        err,
        Error::CgroupMemoryUnavailable {
            reason: CgroupV2Unusable::Missing {
                path: node.dir.path().join("no-cgroup-here/hadoop-yarn"),
            }
        }
    );
}

#[tokio::test]
async fn auto_detection_on_this_hosts_cgroups_falls_back_instead_of_failing() {
    // The defaults: /sys/fs/cgroup and /hadoop-yarn, cgroup memory not required.
    let node = Node::new("default");
    let enforcement = MemoryEnforcement::detect(&node.config).unwrap();
    // Without cgroup.controllers at the mount, the host has no cgroup v2 there (cgroup v1 or
    // hybrid, as on the machines these tests were written on).
    if !Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
        assert!(
            matches!(enforcement, MemoryEnforcement::ResidentMemory { .. }),
            "{enforcement:?}"
        );
    }
    // Either way the executor starts and runs containers.
    let executor = ContainerExecutor::try_new(&node.config).unwrap();
    let handle = must_launch(&executor, spec(container(21), "exit 0", 64)).await;
    assert_eq!(must_exit(&handle).await.exit_code, 0);
}

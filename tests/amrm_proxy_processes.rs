//! The AMRMProxy and distributed scheduling end to end with real processes: the minicluster's
//! NodeManagers run an AMRMProxy with the distributed scheduler, every ApplicationMaster the RM
//! launches talks to its node's proxy, and OPPORTUNISTIC containers are placed by the proxy.
//!
//! What this file proves:
//! - a distributed-shell job with 10 OPPORTUNISTIC containers succeeds while the RM receives no
//!   OPPORTUNISTIC ask (its counter stays 0) and records the 10 containers the proxies placed;
//! - the AM's token file holds only the proxy's local AMRMToken, which the RM refuses, and a
//!   forged copy of it is refused by the proxy;
//! - `--promote_opportunistic_after_start` promotes the job's running containers;
//! - a job goes on to success through a SIGKILL and restart of the NodeManager whose proxy
//!   serves its AM (the chain is recovered from the NM state store), and through a SIGKILL of
//!   the active ResourceManager.

mod common;

use std::path::Path;
use std::process::Child;

use tokio::runtime::Runtime;
use yarn_client::{Idempotency, RmClient, RmClientConfig, RmService};
use yarn_conf::{Configuration, HostPort};
use yarn_minicluster::{ClusterState, DaemonRole};
use yarn_nodemanager::executor::Signal;
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;
use yarn_proto::pb::application_master_protocol_client::ApplicationMasterProtocolClient;
use yarn_proto::token_metadata::{
    AMRM_PROXY_ADDRESS_ENV, AMRM_TOKEN_METADATA_KEY, TOKEN_FILE_ENV, insert_token,
};
use yarn_security::hadoop_credentials::Credentials;

use common::process_cluster::{ProcessCluster, am_pid, eventually, wait_exit};
use common::stdout;

/// The counters the leader keeps of OPPORTUNISTIC work.
fn opportunistic_counters(runtime: &Runtime, conf_dir: &Path) -> (i64, i64) {
    let conf = Configuration::load_dir(conf_dir).unwrap();
    let client = RmClient::new(
        &RmClientConfig::from_conf(&conf).unwrap(),
        RmService::Client,
    );
    let metrics = runtime
        .block_on(client.call(Idempotency::Idempotent, |channel| async move {
            ApplicationClientProtocolClient::new(channel)
                .get_cluster_metrics(pb::GetClusterMetricsRequestProto::default())
                .await
        }))
        .expect("GetClusterMetrics")
        .cluster_metrics
        .expect("cluster metrics");
    (
        metrics.num_opportunistic_containers_requested_centrally,
        metrics.num_opportunistic_containers_allocated_distributed,
    )
}

/// `variable` in the environment of process `pid`.
fn environment_of(pid: u32, variable: &str) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ.split(|b| *b == 0).find_map(|entry| {
        let entry = String::from_utf8_lossy(entry);
        let (name, value) = entry.split_once('=')?;
        (name == variable).then(|| value.to_owned())
    })
}

/// How `RegisterApplicationMaster` with `token` ends on `config`'s first target: the gRPC code.
fn register_code(
    runtime: &Runtime,
    config: &RmClientConfig,
    token: &pb::TokenProto,
) -> tonic::Code {
    let client = RmClient::new(config, RmService::Scheduler);
    let rm_id = config.rm_ids()[0].clone();
    let result = runtime.block_on(client.call_on(&rm_id, |channel| {
        let mut request = tonic::Request::new(pb::RegisterApplicationMasterRequestProto::default());
        insert_token(&mut request, AMRM_TOKEN_METADATA_KEY, token);
        async move {
            ApplicationMasterProtocolClient::new(channel)
                .register_application_master(request)
                .await
        }
    }));
    match result {
        Ok(_) => tonic::Code::Ok,
        Err(yarn_client::Error::CallFailed { status, .. }) => status.code(),
        Err(err) => panic!("RegisterApplicationMaster failed before an answer: {err}"),
    }
}

/// The id of the NodeManager whose AMRMProxy listens at `proxy`, with its pid.
fn nodemanager_at(base: &Path, proxy: &str) -> (String, u32) {
    let state = ClusterState::read(base).expect("cluster.json");
    state
        .daemons
        .iter()
        .filter(|daemon| daemon.role == DaemonRole::NodeManager)
        .find_map(|daemon| {
            let conf = Configuration::load_dir(&daemon.conf_dir).ok()?;
            let address = conf.get_raw("yarn.nodemanager.amrmproxy.address")?;
            if address != proxy {
                return None;
            }
            Some((daemon.id.clone(), daemon.pid?))
        })
        .unwrap_or_else(|| {
            panic!(
                "no NodeManager of {} serves the AMRMProxy {proxy}",
                base.display()
            )
        })
}

/// How many `sleep` processes run in containers of `application`.
fn running_tasks(application: &str) -> usize {
    let ids = application.trim_start_matches("application_");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmd| cmd.starts_with(b"sleep\0"))
        })
        .filter(|pid| environment_of(*pid, "CONTAINER_ID").is_some_and(|id| id.contains(ids)))
        .count()
}

fn opportunistic_successes(out: &std::process::Output) -> usize {
    stdout(out)
        .lines()
        .filter(|line| line.contains(" OPPORTUNISTIC exit 0"))
        .count()
}

fn finished(job: Child, what: &str, containers: usize) {
    let out = wait_exit(job, what);
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stdout(&out));
    assert_eq!(
        opportunistic_successes(&out),
        containers,
        "{what}: {}",
        stdout(&out)
    );
}

#[test]
fn distributed_scheduling_through_the_amrm_proxy() {
    let _turn = common::process_cluster::one_cluster_at_a_time();
    let mut cluster = ProcessCluster::start(2);

    let (requested_before, distributed_before) =
        opportunistic_counters(cluster.runtime(), cluster.conf_dir());
    let out = cluster.yarn(&[
        "dshell",
        "--shell_command",
        "true",
        "--num_containers",
        "10",
        "--container_type",
        "OPPORTUNISTIC",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(opportunistic_successes(&out), 10, "{}", stdout(&out));
    let (requested, distributed) = opportunistic_counters(cluster.runtime(), cluster.conf_dir());
    assert_eq!(
        (requested_before, requested),
        (0, 0),
        "no OPPORTUNISTIC ask may reach the RM: the proxies place them"
    );
    assert!(
        distributed - distributed_before >= 10,
        "the RM recorded {} proxy-placed containers, expected the job's 10",
        distributed - distributed_before
    );

    // Promotion after start: each running OPPORTUNISTIC container becomes GUARANTEED through
    // the RM's container update, and its node takes the new token.
    let out = cluster.yarn(&[
        "dshell",
        "--shell_command",
        // Long enough that the promotion's round trip (AM, proxy, RM, Raft, NM) ends before
        // the containers do.
        "sleep 8",
        "--num_containers",
        "2",
        "--container_type",
        "OPPORTUNISTIC",
        "--promote_opportunistic_after_start",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("2 OPPORTUNISTIC containers promoted to GUARANTEED"),
        "{}",
        stdout(&out)
    );

    // A job that runs long enough to look at its AM, restart its node and kill the leader.
    let job = cluster.spawn_dshell(&[
        "--shell_command",
        "sleep 10",
        "--num_containers",
        "4",
        "--container_type",
        "OPPORTUNISTIC",
    ]);
    let am = eventually("the ApplicationMaster process", || {
        am_pid(cluster.conf_dir())
    });
    let proxy = eventually("the AM's AMRMProxy address", || {
        environment_of(am, AMRM_PROXY_ADDRESS_ENV)
    });
    let token_file = eventually("the AM's token file", || environment_of(am, TOKEN_FILE_ENV));
    let file = std::fs::read(&token_file).unwrap();
    assert_eq!(
        &file[..5],
        b"HDTS\0",
        "a Hadoop credentials file, version 0"
    );
    let credentials = Credentials::decode(&file).unwrap();
    let amrm: Vec<_> = credentials.tokens_of_kind("YARN_AM_RM_TOKEN").collect();
    assert_eq!(amrm.len(), 1, "{credentials:?}");
    let local = pb::TokenProto::from(amrm[0].clone());
    assert_eq!(local.service, proxy, "the token is the proxy's own");
    // Hadoop's AM environment, which the NodeManager leaves as the RM set it.
    for variable in ["APP_SUBMIT_TIME_ENV", "MAX_APP_ATTEMPTS"] {
        let value = environment_of(am, variable).unwrap_or_default();
        assert!(
            value.parse::<i64>().is_ok_and(|v| v > 0),
            "{variable}={value:?}"
        );
    }

    let conf = Configuration::load_dir(cluster.conf_dir()).unwrap();
    let to_rm = RmClientConfig::from_conf(&conf).unwrap();
    let to_proxy = to_rm
        .clone()
        .through_amrm_proxy(proxy.parse::<HostPort>().unwrap());
    // The RM group never signed the AM's token, so it refuses it on every replica.
    for rm_id in to_rm.rm_ids() {
        let mut one = to_rm.clone();
        one.ha.members.retain(|member| member.rm_id == rm_id);
        let code = register_code(cluster.runtime(), &one, &local);
        assert!(
            matches!(
                code,
                tonic::Code::Unauthenticated
                    | tonic::Code::PermissionDenied
                    | tonic::Code::Unavailable
            ),
            "{rm_id} answered {code:?} to the proxy's local token"
        );
    }
    let mut forged = local.clone();
    let last = forged.password.last_mut().expect("a password");
    *last ^= 0x01;
    assert_eq!(
        register_code(cluster.runtime(), &to_proxy, &forged),
        tonic::Code::PermissionDenied,
        "a forged local token is refused by the proxy"
    );

    // The AM's node dies and comes back: its proxy recovers the chain and the AM goes on in the
    // application's only attempt (a relaunch would be a second one). Killed once every task
    // runs: a start cut off by the kill is refused when sent again (its token was used), which
    // fails that task, and is not what this test is about.
    let application = cluster.running_application();
    eventually("the job's four tasks running", || {
        (running_tasks(&application) == 4).then_some(())
    });
    let (nm_id, nm_pid) = nodemanager_at(cluster.base_dir(), &proxy);
    Signal::Kill
        .send(nm_pid)
        .expect("SIGKILL the AM's NodeManager");
    cluster.restart(&nm_id);
    finished(job, "the job whose NodeManager restarted", 4);
    let attempts = cluster.yarn(&["applicationattempt", "-list", &application]);
    let attempts: Vec<String> = stdout(&attempts)
        .lines()
        .filter(|line| line.starts_with("appattempt_"))
        .map(str::to_owned)
        .collect();
    assert_eq!(attempts.len(), 1, "no second attempt: {attempts:?}");

    // The active RM dies mid-job: the proxies re-register for their AMs and go on.
    let job = cluster.spawn_dshell(&[
        "--shell_command",
        "sleep 8",
        "--num_containers",
        "4",
        "--container_type",
        "OPPORTUNISTIC",
    ]);
    cluster.running_application();
    let leader = cluster.kill_leader();
    finished(job, "the job whose ResourceManager was killed", 4);
    cluster.restart(&leader);
}

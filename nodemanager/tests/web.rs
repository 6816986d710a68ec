//! The NodeManager's REST API over real connections: a whole NodeManager serving
//! `/ws/v1/node/...` over mutual TLS while its ResourceManager is unreachable, the container
//! views over a container manager recovered with a completed and a running container, plain
//! HTTP when TLS is disabled, and who may read without naming themselves
//! (`hadoop.http.authentication.simple.anonymous.allowed`). Requests are raw HTTP/1.1 over a
//! TLS stream.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_rustls::TlsConnector;
use tokio_util::sync::CancellationToken;
use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_nodemanager::container_manager::ContainerManager;
use yarn_nodemanager::container_scheduler::{ExecutionType, Resources};
use yarn_nodemanager::executor::SimulatedExecutor;
use yarn_nodemanager::node_status_updater::Connection;
use yarn_nodemanager::state_store::ContainerRecord;
use yarn_nodemanager::web::{self, NodeDescription};
use yarn_nodemanager::{ContainerExecutor, NmConfig, NmStateStore, NodeManager};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_security::pki::LeafSpec;
use yarn_security::{Role, TlsConfig};
use yarn_test_support::pki::Pki;
use yarn_web::{WebAccess, WebServer};

use common::now_ms;

/// Longest a test waits for a container to reach a state.
const DEADLINE: Duration = Duration::from_secs(10);
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A cluster CA with certificates for a node, a second node and a user.
fn pki() -> Pki {
    Pki::new(&[
        LeafSpec::new(Role::NodeManager, "node1"),
        LeafSpec::new(Role::NodeManager, "node2"),
        LeafSpec::new(Role::User, "alice"),
    ])
}

/// An HTTP/1.1 client presenting the certificate of `role`/`name`.
fn client(pki: &Pki, role: Role, name: &str) -> Arc<ClientConfig> {
    http1(&pki.tls(role, name).client_config().unwrap())
}

/// An HTTP/1.1 client that trusts the cluster CA but presents no certificate.
fn anonymous_client(pki: &Pki) -> Arc<ClientConfig> {
    let ca =
        yarn_security::tls::read_certificates(&pki.files(Role::User, "alice").ca_cert).unwrap();
    http1(&yarn_security::tls::client_config(&ca, None).unwrap())
}

/// `config` offering HTTP/1.1 by ALPN instead of gRPC's `h2`.
fn http1(config: &ClientConfig) -> Arc<ClientConfig> {
    let mut config = config.clone();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// A response: status, content type and the body as JSON.
#[derive(Debug)]
struct HttpResponse {
    status: u16,
    content_type: String,
    body: Value,
}

/// `GET path` on `address`, over TLS with `client` or in plain text without.
async fn get(
    address: SocketAddr,
    client: Option<&Arc<ClientConfig>>,
    path: &str,
) -> std::io::Result<HttpResponse> {
    send(address, client, "GET", path).await
}

/// `method path` without a body on `address`, over TLS with `client` or in plain text without.
async fn send(
    address: SocketAddr,
    client: Option<&Arc<ClientConfig>>,
    method: &str,
    path: &str,
) -> std::io::Result<HttpResponse> {
    let tcp = TcpStream::connect(address).await?;
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\
         Connection: close\r\n\r\n"
    );
    let raw = match client {
        Some(client) => {
            let server = ServerName::try_from("localhost").unwrap();
            let tls = TlsConnector::from(Arc::clone(client))
                .connect(server, tcp)
                .await?;
            exchange(tls, &request).await?
        }
        None => exchange(tcp, &request).await?,
    };
    Ok(parse(&raw))
}

/// Writes `request` and reads one response, headers and `Content-Length` bytes of body.
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    request: &str,
) -> std::io::Result<Vec<u8>> {
    stream.write_all(request.as_bytes()).await?;
    stream.flush().await?;
    let mut raw = Vec::new();
    let mut buffer = [0_u8; 4096];
    loop {
        if let Some(length) = complete_length(&raw) {
            raw.truncate(length);
            return Ok(raw);
        }
        let read = stream.read(&mut buffer).await?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        raw.extend_from_slice(&buffer[..read]);
    }
}

/// The length of the whole response once `raw` holds it.
fn complete_length(raw: &[u8]) -> Option<usize> {
    let head_end = raw.windows(4).position(|window| window == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&raw[..head_end]).unwrap();
    let body_length: usize = header(head, "content-length")
        .expect("responses carry a Content-Length")
        .parse()
        .unwrap();
    (raw.len() >= head_end + body_length).then_some(head_end + body_length)
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then_some(value.trim())
    })
}

fn parse(raw: &[u8]) -> HttpResponse {
    let text = std::str::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    HttpResponse {
        status,
        content_type: header(head, "content-type").unwrap_or_default().to_owned(),
        body: serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}")),
    }
}

async fn must_get(address: SocketAddr, client: &Arc<ClientConfig>, path: &str) -> HttpResponse {
    let response = get(address, Some(client), path).await.unwrap();
    assert_eq!(response.content_type, "application/json", "{path}");
    response
}

/// Each field of a JSON object with the JSON type of its value.
fn shape(object: &Value) -> BTreeMap<String, &'static str> {
    let object = object
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {object}"));
    object
        .iter()
        .map(|(key, value)| {
            let kind = match value {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_f64() => "float",
                Value::Number(_) => "integer",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            };
            (key.clone(), kind)
        })
        .collect()
}

fn expected_shape(fields: &[(&str, &'static str)]) -> BTreeMap<String, &'static str> {
    fields
        .iter()
        .map(|&(key, kind)| (key.to_owned(), kind))
        .collect()
}

fn node_info_shape() -> BTreeMap<String, &'static str> {
    expected_shape(&[
        ("healthReport", "string"),
        ("totalVmemAllocatedContainersMB", "integer"),
        ("totalPmemAllocatedContainersMB", "integer"),
        ("totalVCoresAllocatedContainers", "integer"),
        ("vmemCheckEnabled", "boolean"),
        ("pmemCheckEnabled", "boolean"),
        ("lastNodeUpdateTime", "integer"),
        ("nodeHealthy", "boolean"),
        ("nodeManagerVersion", "string"),
        ("nodeManagerBuildVersion", "string"),
        ("nodeManagerVersionBuiltOn", "string"),
        ("hadoopVersion", "string"),
        ("hadoopBuildVersion", "string"),
        ("hadoopVersionBuiltOn", "string"),
        ("id", "string"),
        ("nodeHostName", "string"),
        ("nmStartupTime", "integer"),
        ("numRunningOpportContainers", "integer"),
        ("usedMemoryOpportGB", "integer"),
        ("usedMemoryOpportMB", "integer"),
        ("usedVirtualCoresOpport", "integer"),
        ("numQueuedContainers", "integer"),
    ])
}

fn container_shape() -> BTreeMap<String, &'static str> {
    expected_shape(&[
        ("id", "string"),
        ("state", "string"),
        ("exitCode", "integer"),
        ("diagnostics", "string"),
        ("user", "string"),
        ("totalMemoryNeededMB", "integer"),
        ("totalVCoresNeeded", "integer"),
        ("containerLogsLink", "string"),
        ("nodeId", "string"),
        ("containerLogFiles", "array"),
        ("executionType", "string"),
    ])
}

/// Asserts a Hadoop `RemoteException` body with `exception` whose message contains `needle`.
fn assert_remote_exception(response: &HttpResponse, status: u16, exception: &str, needle: &str) {
    assert_eq!(response.status, status, "{:?}", response.body);
    let remote = &response.body["RemoteException"];
    assert_eq!(
        shape(remote),
        expected_shape(&[
            ("exception", "string"),
            ("message", "string"),
            ("javaClassName", "string"),
        ])
    );
    assert_eq!(remote["exception"], exception);
    assert_eq!(
        remote["javaClassName"],
        format!("org.apache.hadoop.yarn.webapp.{exception}")
    );
    let message = remote["message"].as_str().unwrap();
    assert!(message.contains(needle), "{message}");
}

/// A NodeManager configuration on 127.0.0.1 port 0 for both endpoints, with its directories
/// under `dir`, simulated containers and 4096 MB and 4 vcores.
fn node_conf(dir: &Path) -> Configuration {
    let mut conf = common::node_dirs_conf(dir);
    conf.set("yarn.nodemanager.address", "127.0.0.1:0");
    conf.set("yarn.nodemanager.webapp.address", "127.0.0.1:0");
    conf.set("yarn.nodemanager.resource.memory-mb", "4096");
    conf.set("yarn.nodemanager.resource.cpu-vcores", "4");
    conf.set("yarn.nodemanager.pmem-check-enabled", "false");
    conf.set("yarn.nodemanager.container-executor.class", "simulated");
    conf
}

/// A 127.0.0.1 port nothing listens on.
async fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn a_node_manager_serves_its_rest_api_over_mutual_tls_while_its_rm_is_unreachable() {
    let pki = pki();
    let dir = tempfile::tempdir().unwrap();
    let mut conf = node_conf(dir.path());
    conf.set(
        "yarn.resourcemanager.resource-tracker.address",
        &format!("127.0.0.1:{}", closed_port().await),
    );
    // Each registration attempt fails fast, so the node stops promptly at the end.
    conf.set("yarn.client.failover-max-attempts", "1");
    conf.set("yarn.client.failover-sleep-base-ms", "10");
    conf.set("yarn.client.failover-sleep-max-ms", "10");
    pki.set_tls(&mut conf, Role::NodeManager, "node1");
    let config = NmConfig::from_conf(&conf).unwrap();
    let client_config = RmClientConfig::from_conf(&conf).unwrap();
    let node = NodeManager::start(config, client_config, pki.tls(Role::NodeManager, "node1"))
        .await
        .unwrap();
    let address = node.web_address();
    assert_ne!(address.port(), 0);
    assert_ne!(address, node.local_address());
    let alice = client(&pki, Role::User, "alice");
    let other_node = client(&pki, Role::NodeManager, "node2");

    tracing::info!("--- node info, for any role, under both of Hadoop's paths");
    let info = must_get(address, &alice, "/ws/v1/node/info").await;
    assert_eq!(info.status, 200);
    let node_info = &info.body["nodeInfo"];
    assert_eq!(shape(node_info), node_info_shape());
    assert_eq!(node_info["id"], node.node_id().to_string());
    assert_eq!(node_info["nodeHostName"], "127.0.0.1");
    assert_eq!(node_info["totalPmemAllocatedContainersMB"], 4096);
    assert_eq!(node_info["totalVmemAllocatedContainersMB"], 4096);
    assert_eq!(node_info["totalVCoresAllocatedContainers"], 4);
    assert_eq!(node_info["pmemCheckEnabled"], false);
    assert_eq!(node_info["vmemCheckEnabled"], false);
    assert_eq!(node_info["nodeHealthy"], true);
    assert_eq!(node_info["nodeManagerVersion"], VERSION);
    assert_eq!(node_info["hadoopVersion"], VERSION);
    let started = node_info["nmStartupTime"].as_i64().unwrap();
    assert!(started > 1_600_000_000_000, "{started}");
    assert_eq!(node_info["lastNodeUpdateTime"], started);
    let short = must_get(address, &other_node, "/ws/v1/node").await;
    assert_eq!(short.status, 200);
    assert_eq!(short.body, info.body);

    tracing::info!("--- no containers yet: an empty list, not null");
    let containers = must_get(address, &other_node, "/ws/v1/node/containers").await;
    assert_eq!(containers.status, 200);
    assert_eq!(containers.body, json!({"containers": {"container": []}}));

    tracing::info!("--- refusals in Hadoop's RemoteException shape");
    let unknown = "container_e03_1700000000000_0001_01_000001";
    let response = must_get(
        address,
        &alice,
        &format!("/ws/v1/node/containers/{unknown}"),
    )
    .await;
    assert_remote_exception(&response, 404, "NotFoundException", unknown);
    let response = must_get(address, &alice, "/ws/v1/node/containers/container_bogus").await;
    assert_remote_exception(&response, 400, "BadRequestException", "\"container_bogus\"");
    let response = must_get(address, &alice, "/ws/v1/cluster/info").await;
    assert_remote_exception(&response, 404, "NotFoundException", "/ws/v1/cluster/info");

    tracing::info!("--- a client without a certificate from the cluster CA is refused");
    let refused = get(address, Some(&anonymous_client(&pki)), "/ws/v1/node/info").await;
    assert!(refused.is_err(), "{refused:?}");

    tracing::info!("--- the web server stops with the node");
    node.run_until(async {}).await.unwrap();
    assert!(TcpStream::connect(address).await.is_err());
}

fn attempt() -> ApplicationAttemptId {
    ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1)
}

fn record(
    container_id: ContainerId,
    resources: Resources,
    execution_type: ExecutionType,
    environment: HashMap<String, String>,
) -> ContainerRecord {
    ContainerRecord {
        container_id,
        user: "alice".to_owned(),
        commands: Vec::new(),
        environment,
        resources,
        execution_type,
        token_version: 0,
        container_token_identifier: Vec::new(),
        tokens: Vec::new(),
        local_resources: std::collections::BTreeMap::new(),
    }
}

#[tokio::test]
async fn containers_are_listed_in_hadoops_shape_with_their_state_exit_code_and_log_files() {
    let pki = pki();
    let dir = tempfile::tempdir().unwrap();
    let mut conf = node_conf(dir.path());
    conf.set("yarn.nodemanager.recovery.enabled", "true");
    let config = NmConfig::from_conf(&conf).unwrap();
    let node_id = NodeId::new("node1.example.com", 45454);

    tracing::info!("--- a completed and a queued container in the state store");
    let completed = ContainerId::new(attempt(), 3, 1).unwrap();
    let running = ContainerId::new(attempt(), 3, 2).unwrap();
    let store = NmStateStore::from_config(&config).unwrap();
    let no_environment = HashMap::new();
    store
        .store_container_queued(&record(
            completed,
            Resources::new(1024, 1),
            ExecutionType::Guaranteed,
            no_environment,
        ))
        .await
        .unwrap();
    store
        .store_container_completed(completed, 3, "Exited with 3.", now_ms())
        .await
        .unwrap();
    let long_run = HashMap::from([(
        SimulatedExecutor::SIMULATED_DURATION_ENV.to_owned(),
        "600000".to_owned(),
    )]);
    store
        .store_container_queued(&record(
            running,
            Resources::new(512, 2),
            ExecutionType::Opportunistic,
            long_run,
        ))
        .await
        .unwrap();
    let log_dir = dir
        .path()
        .join("logs")
        .join(attempt().application_id.to_string())
        .join(completed.to_string());
    std::fs::create_dir_all(log_dir.join("not-a-file")).unwrap();
    std::fs::write(log_dir.join("stdout"), "out").unwrap();
    std::fs::write(log_dir.join("stderr"), "err").unwrap();

    tracing::info!("--- recovery restarts the queued one");
    let (_connection, connection) = watch::channel(Connection::Connected { rm_epoch: 3 });
    let manager = ContainerManager::recover(
        &config,
        node_id.clone(),
        8042,
        store,
        ContainerExecutor::new(&config),
        connection,
    )
    .await
    .unwrap();
    common::eventually(&format!("{running} to be RUNNING"), DEADLINE, || async {
        manager
            .container_reports()
            .iter()
            .any(|report| report.container_id == running && report.state_name() == "RUNNING")
            .then_some(())
    })
    .await;

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = web::router(
        Arc::clone(&manager),
        NodeDescription::new(&config, node_id, 1_700_000_000_000),
    );
    let server = WebServer::new(
        listener,
        address,
        &pki.tls(Role::NodeManager, "node1"),
        WebAccess::default(),
        router,
    );
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(server.run(shutdown.clone()));
    let alice = client(&pki, Role::User, "alice");

    tracing::info!("--- the list, in container id order");
    let list = must_get(address, &alice, "/ws/v1/node/containers").await;
    assert_eq!(list.status, 200);
    let containers = list.body["containers"]["container"].as_array().unwrap();
    assert_eq!(containers.len(), 2, "{}", list.body);
    for container in containers {
        assert_eq!(shape(container), container_shape());
    }
    assert_eq!(
        containers[0],
        json!({
            "id": completed.to_string(),
            "state": "COMPLETE",
            "exitCode": 3,
            "diagnostics": "Exited with 3.",
            "user": "alice",
            "totalMemoryNeededMB": 1024,
            "totalVCoresNeeded": 1,
            "containerLogsLink": "",
            "nodeId": "node1.example.com:45454",
            "containerLogFiles": ["stderr", "stdout"],
            "executionType": "GUARANTEED",
        })
    );
    assert_eq!(
        containers[1],
        json!({
            "id": running.to_string(),
            "state": "RUNNING",
            "exitCode": -1000,
            "diagnostics": "",
            "user": "alice",
            "totalMemoryNeededMB": 512,
            "totalVCoresNeeded": 2,
            "containerLogsLink": "",
            "nodeId": "node1.example.com:45454",
            "containerLogFiles": [],
            "executionType": "OPPORTUNISTIC",
        })
    );

    tracing::info!("--- the node's opportunistic load");
    let info = must_get(address, &alice, "/ws/v1/node/info").await;
    assert_eq!(info.status, 200);
    let node = &info.body["nodeInfo"];
    assert_eq!(node["numRunningOpportContainers"], 1, "{node}");
    assert_eq!(node["usedMemoryOpportMB"], 512, "{node}");
    assert_eq!(node["usedVirtualCoresOpport"], 2, "{node}");
    assert_eq!(node["numQueuedContainers"], 0, "{node}");

    tracing::info!("--- one container by id");
    let one = must_get(
        address,
        &alice,
        &format!("/ws/v1/node/containers/{running}"),
    )
    .await;
    assert_eq!(one.status, 200);
    assert_eq!(one.body, json!({"container": containers[1]}));

    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

/// A node's web server alone, over an empty container manager, with the transport `tls`
/// and the callers `access` admits; cancel the token to stop it.
async fn must_serve_web(
    tls: &TlsConfig,
    access: WebAccess,
) -> (
    SocketAddr,
    CancellationToken,
    tokio::task::JoinHandle<Result<(), yarn_web::ServeError>>,
    tempfile::TempDir,
) {
    let dir = tempfile::tempdir().unwrap();
    let config = NmConfig::from_conf(&node_conf(dir.path())).unwrap();
    let node_id = NodeId::new("127.0.0.1", 45454);
    let (_connection, connection) = watch::channel(Connection::Disconnected);
    let manager = ContainerManager::recover(
        &config,
        node_id.clone(),
        8042,
        NmStateStore::disabled(),
        ContainerExecutor::new(&config),
        connection,
    )
    .await
    .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = web::router(manager, NodeDescription::new(&config, node_id, now_ms()));
    let server = WebServer::new(listener, address, tls, access, router);
    let shutdown = CancellationToken::new();
    let serving = tokio::spawn(server.run(shutdown.clone()));
    (address, shutdown, serving, dir)
}

/// Asserts a 401 `AuthorizationException` whose message contains `needle`.
fn assert_unauthorized(response: &HttpResponse, needle: &str) {
    assert_eq!(response.status, 401, "{:?}", response.body);
    let remote = &response.body["RemoteException"];
    assert_eq!(remote["exception"], "AuthorizationException", "{remote}");
    assert_eq!(
        remote["javaClassName"],
        "org.apache.hadoop.security.authorize.AuthorizationException"
    );
    let message = remote["message"].as_str().unwrap();
    assert!(message.contains(needle), "{message}");
}

#[tokio::test]
async fn without_tls_reads_need_user_name_unless_anonymous_reads_are_allowed() {
    tracing::info!("--- by default, as Hadoop's pseudo authentication without anonymous");
    let (address, shutdown, serving, _dir) =
        must_serve_web(&TlsConfig::disabled(), WebAccess::default()).await;
    let named = get(address, None, "/ws/v1/node/info?user.name=alice")
        .await
        .unwrap();
    assert_eq!(named.status, 200);
    assert_eq!(shape(&named.body["nodeInfo"]), node_info_shape());
    let unnamed = get(address, None, "/ws/v1/node/info").await.unwrap();
    assert_unauthorized(&unnamed, "Unable to obtain user name");
    assert_unauthorized(
        &unnamed,
        "hadoop.http.authentication.simple.anonymous.allowed is false",
    );
    shutdown.cancel();
    serving.await.unwrap().unwrap();

    tracing::info!("--- with anonymous reads allowed: reads as dr.who, writes refused");
    let anonymous_reads = WebAccess {
        anonymous_reads: true,
    };
    let (address, shutdown, serving, _dir) =
        must_serve_web(&TlsConfig::disabled(), anonymous_reads).await;
    let info = get(address, None, "/ws/v1/node/info").await.unwrap();
    assert_eq!(info.status, 200);
    assert_eq!(shape(&info.body["nodeInfo"]), node_info_shape());
    let write = send(address, None, "POST", "/ws/v1/node/info")
        .await
        .unwrap();
    assert_unauthorized(&write, "POST /ws/v1/node/info needs user.name=<user>");
    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn over_https_anonymous_reads_let_clients_without_certificate_read_and_nothing_more() {
    let pki = pki();
    let tls = pki.tls(Role::NodeManager, "node1");
    let anonymous = anonymous_client(&pki);

    tracing::info!("--- by default a client without a certificate fails the handshake");
    let (address, shutdown, serving, _dir) = must_serve_web(&tls, WebAccess::default()).await;
    let refused = get(address, Some(&anonymous), "/ws/v1/node/info").await;
    assert!(refused.is_err(), "{refused:?}");
    shutdown.cancel();
    serving.await.unwrap().unwrap();

    tracing::info!("--- with anonymous reads allowed it reads, and only reads");
    let anonymous_reads = WebAccess {
        anonymous_reads: true,
    };
    let (address, shutdown, serving, _dir) = must_serve_web(&tls, anonymous_reads).await;
    let info = must_get(address, &anonymous, "/ws/v1/node/info").await;
    assert_eq!(info.status, 200);
    assert_eq!(shape(&info.body["nodeInfo"]), node_info_shape());
    // A route that does not exist and a method no route has: refused for want of a
    // certificate before anything else is said about them.
    for (method, path) in [("POST", "/ws/v1/node/info"), ("PUT", "/ws/v1/nowhere")] {
        let write = send(address, Some(&anonymous), method, path).await.unwrap();
        assert_unauthorized(
            &write,
            &format!("{method} {path} needs a client certificate signed by the cluster CA"),
        );
    }
    let alice = client(&pki, Role::User, "alice");
    assert_eq!(
        must_get(address, &alice, "/ws/v1/node/info").await.status,
        200
    );

    tracing::info!("--- a certificate from another CA is still refused at the handshake");
    let other_ca = Pki::new(&[LeafSpec::new(Role::User, "mallory")]);
    let mallory = http1(
        &yarn_security::tls::client_config(
            &yarn_security::tls::read_certificates(&pki.files(Role::User, "alice").ca_cert)
                .unwrap(),
            Some(
                yarn_security::Credentials::read(
                    &other_ca.files(Role::User, "mallory").cert,
                    &other_ca.files(Role::User, "mallory").key,
                )
                .unwrap(),
            ),
        )
        .unwrap(),
    );
    let foreign = get(address, Some(&mallory), "/ws/v1/node/info").await;
    assert!(foreign.is_err(), "{foreign:?}");
    assert_eq!(
        must_get(address, &alice, "/ws/v1/node/info").await.status,
        200
    );
    shutdown.cancel();
    serving.await.unwrap().unwrap();
}

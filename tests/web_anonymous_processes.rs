//! Anonymous reads over HTTPS (`hadoop.http.authentication.simple.anonymous.allowed=true`) on
//! a minicluster of real processes, called by curl as a tool that cannot present a certificate
//! would: it trusts the cluster CA (`--cacert`) and presents none. It reads the RM's REST API
//! (directly and through a standby's redirect) and a NodeManager's, and every write is refused
//! with 401 naming the certificate it lacks; a certificate from another CA is still refused at
//! the handshake, and a user certificate still writes. (That without the key a client without
//! a certificate fails the handshake is checked by `rest_api_processes`.)

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use yarn_conf::{Configuration, RmHaConfig, keys};
use yarn_minicluster::LayoutOptions;

use common::process_cluster::{ProcessCluster, eventually, one_cluster_at_a_time};
use common::{stderr, stdout, yarn_ha};

/// One answer: its status and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|err| panic!("not JSON ({err}): {self:?}"))
    }
}

/// `curl -X method url` with the TLS arguments `tls`, following redirects; `Err` with curl's
/// message when it got no HTTP answer (a refused handshake).
fn curl(tls: &[OsString], method: &str, url: &str) -> Result<Answer, String> {
    let out = Command::new("curl")
        .args(["-sS", "-L", "--max-time", "30", "-X", method])
        .args(["-w", "\n%{http_code}"])
        .args(tls)
        .arg(url)
        .output()
        .expect("curl runs");
    if !out.status.success() {
        return Err(stderr(&out));
    }
    let text = stdout(&out);
    let (body, status) = text.rsplit_once('\n').expect("curl printed the status");
    Ok(Answer {
        status: status.parse().expect("an HTTP status"),
        body: body.to_owned(),
    })
}

/// Trusts `ca` and presents no certificate.
fn anonymous(ca: &Path) -> Vec<OsString> {
    vec!["--cacert".into(), ca.into()]
}

/// Trusts `ca` and presents `cert` with `key`.
fn presenting(ca: &Path, cert: &Path, key: &Path) -> Vec<OsString> {
    let mut args = anonymous(ca);
    args.extend(["--cert".into(), cert.into(), "--key".into(), key.into()]);
    args
}

/// `curl` until it gets an answer other than 503, which a replica gives while it cannot confirm
/// its leadership yet (a cluster just started on a busy machine), as Hadoop's clients retry it.
fn curl_past_503(tls: &[OsString], method: &str, url: &str) -> Answer {
    eventually(
        &format!("{method} {url} to be answered other than 503"),
        || {
            let answer = curl(tls, method, url).unwrap();
            (answer.status != 503).then_some(answer)
        },
    )
}

/// Asserts a 401 `RemoteException` saying that `request` needs a client certificate.
fn assert_needs_certificate(answer: &Answer, request: &str) {
    assert_eq!(answer.status, 401, "{request}: {answer:?}");
    let remote = &answer.json()["RemoteException"];
    assert_eq!(remote["exception"], "AuthorizationException", "{answer:?}");
    let message = remote["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "{request} needs a client certificate signed by the cluster CA"
        )),
        "{message}"
    );
}

#[test]
fn clients_without_certificate_read_and_only_read_when_anonymous_reads_are_allowed() {
    let _turn = one_cluster_at_a_time();
    let options = LayoutOptions {
        site: vec![(
            keys::HADOOP_HTTP_AUTHENTICATION_SIMPLE_ANONYMOUS_ALLOWED
                .name
                .to_string(),
            "true".to_owned(),
        )],
        ..LayoutOptions::default()
    };
    let cluster = ProcessCluster::start_with(1, &options);
    let conf = Configuration::load_dir(cluster.conf_dir()).unwrap();
    let path = |key: &yarn_conf::Key| PathBuf::from(conf.get(&key.name).unwrap().expect("set"));
    let (ca, cert, key) = (
        path(&keys::TLS_CA_CERT),
        path(&keys::TLS_CERT),
        path(&keys::TLS_KEY),
    );
    let nobody = anonymous(&ca);
    let web: Vec<String> = RmHaConfig::from_conf(&conf)
        .unwrap()
        .members
        .iter()
        .map(|member| format!("https://{}", member.webapp))
        .collect();

    // A client without a certificate probes every replica, as yarn-api-client does.
    let leader = eventually("a replica to report ACTIVE to an anonymous client", || {
        web.iter().find_map(|base| {
            let info = curl(&nobody, "GET", &format!("{base}/ws/v1/cluster/info")).ok()?;
            assert_eq!(info.status, 200, "{info:?}");
            (info.json()["clusterInfo"]["haState"] == "ACTIVE").then(|| base.clone())
        })
    });
    let standby = web.iter().find(|base| **base != leader).unwrap();

    // Reads, on the leader and through a standby's redirect.
    for base in [&leader, standby] {
        let apps = curl_past_503(&nobody, "GET", &format!("{base}/ws/v1/cluster/apps"));
        assert_eq!(apps.status, 200, "{apps:?}");
        assert!(apps.json()["apps"].is_object(), "{apps:?}");
    }
    let nodes = curl_past_503(&nobody, "GET", &format!("{leader}/ws/v1/cluster/nodes"));
    assert_eq!(nodes.status, 200, "{nodes:?}");
    let nm_web = nodes.json()["nodes"]["node"][0]["nodeHTTPAddress"]
        .as_str()
        .expect("the node's web address")
        .to_owned();
    let node = curl(&nobody, "GET", &format!("https://{nm_web}/ws/v1/node/info")).unwrap();
    assert_eq!(node.status, 200, "{node:?}");
    assert!(node.json()["nodeInfo"]["id"].is_string(), "{node:?}");

    // Writes are refused, naming what is missing.
    let new_application = "/ws/v1/cluster/apps/new-application";
    let refused = curl(&nobody, "POST", &format!("{leader}{new_application}")).unwrap();
    assert_needs_certificate(&refused, &format!("POST {new_application}"));
    let state = "/ws/v1/cluster/apps/application_1_0001/state";
    let refused = curl(&nobody, "PUT", &format!("{leader}{state}")).unwrap();
    assert_needs_certificate(&refused, &format!("PUT {state}"));

    // The harness user's certificate still names a user who may write.
    let user = presenting(&ca, &cert, &key);
    let created = curl_past_503(&user, "POST", &format!("{leader}{new_application}"));
    assert_eq!(created.status, 200, "{created:?}");
    assert!(
        created.json()["application-id"]
            .as_str()
            .unwrap()
            .starts_with("application_"),
        "{created:?}"
    );

    // A certificate from another CA is refused at the handshake, on the RM and on the node.
    let other = cluster.base_dir().join("other-pki");
    let out = yarn_ha(&[
        "pki",
        "init",
        "--dir",
        other.to_str().unwrap(),
        "--users",
        "mallory",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mallory = presenting(
        &ca,
        &other.join("user-mallory.pem"),
        &other.join("user-mallory-key.pem"),
    );
    for url in [
        format!("{leader}/ws/v1/cluster/info"),
        format!("https://{nm_web}/ws/v1/node/info"),
    ] {
        let foreign = curl(&mallory, "GET", &url);
        assert!(foreign.is_err(), "{url}: {foreign:?}");
    }
}

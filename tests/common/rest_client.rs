//! Hadoop's REST API as the process tests call it: curl with the harness user's certificate
//! over the cluster's mutual TLS, and the active replica found by each replica's own
//! `clusterInfo`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use yarn_conf::{Configuration, RmHaConfig, keys};

use super::process_cluster::{ProcessCluster, eventually};
use super::stdout;

/// The harness user's TLS files, as curl takes them.
pub struct Credentials {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// One answer: status, `Location` if any, and the body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub location: Option<String>,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|err| panic!("not JSON ({err}): {self:?}"))
    }
}

/// `curl` with the harness user's certificate; `follow` follows redirects.
pub fn curl(
    credentials: Option<&Credentials>,
    method: &str,
    url: &str,
    body: Option<&str>,
    follow: bool,
) -> Result<Answer, String> {
    let mut command = Command::new("curl");
    command.args([
        "-sS",
        "--max-time",
        "30",
        "-X",
        method,
        "-D",
        "-",
        "-o",
        "-",
    ]);
    if follow {
        command.arg("-L");
    }
    if let Some(body) = body {
        command.args(["-H", "Content-Type: application/json", "--data", body]);
    }
    match credentials {
        Some(credentials) => {
            command
                .arg("--cacert")
                .arg(&credentials.ca)
                .arg("--cert")
                .arg(&credentials.cert)
                .arg("--key")
                .arg(&credentials.key);
        }
        None => {
            command.arg("--insecure");
        }
    }
    let out = command.arg(url).output().expect("curl runs");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    // With -D - and -L, each hop's header block comes first; the last one is the answer's.
    let text = stdout(&out);
    let mut rest = text.as_str();
    let mut status = 0;
    let mut location = None;
    while rest.starts_with("HTTP/") {
        let (head, tail) = rest.split_once("\r\n\r\n").unwrap_or((rest, ""));
        let mut lines = head.lines();
        status = lines
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        location = lines.find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("location")
                .then(|| value.trim().to_owned())
        });
        rest = tail;
    }
    Ok(Answer {
        status,
        location,
        body: rest.to_owned(),
    })
}

/// The harness user's credentials and every replica's web address, from the client's
/// configuration.
pub fn setup(cluster: &ProcessCluster) -> (Credentials, Vec<(String, String)>) {
    let conf = Configuration::load_dir(cluster.conf_dir()).unwrap();
    let path = |name: &str| PathBuf::from(conf.get(name).unwrap().expect(name));
    let credentials = Credentials {
        ca: path(&keys::TLS_CA_CERT.name),
        cert: path(&keys::TLS_CERT.name),
        key: path(&keys::TLS_KEY.name),
    };
    let ha = RmHaConfig::from_conf(&conf).unwrap();
    let web = ha
        .members
        .iter()
        .map(|member| (member.rm_id.clone(), format!("https://{}", member.webapp)))
        .collect();
    (credentials, web)
}

/// The active replica's id and web address, by each replica's own `clusterInfo`; checks that
/// every other replica says STANDBY and names the same leader.
pub fn active(credentials: &Credentials, web: &[(String, String)]) -> (String, String) {
    eventually("one replica to report ACTIVE", || {
        let mut active = None;
        for (rm_id, base) in web {
            let answer = curl(
                Some(credentials),
                "GET",
                &format!("{base}/ws/v1/cluster/info"),
                None,
                false,
            )
            .ok()?;
            if answer.status != 200 {
                return None;
            }
            let info = answer.json()["clusterInfo"].clone();
            assert_eq!(info["rmId"], rm_id.as_str(), "{info}");
            assert_eq!(info["state"], "STARTED", "{info}");
            match info["haState"].as_str() {
                Some("ACTIVE") => active = Some((rm_id.clone(), base.clone())),
                Some("STANDBY") => {}
                other => panic!("haState {other:?} in {info}"),
            }
        }
        active
    })
}

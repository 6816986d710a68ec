//! `yarn-ha minicluster` as a user runs it: `init` lays out a cluster whose configuration
//! `conf check` accepts, refuses a used directory, and `restart` without a running cluster
//! says how to start one.

mod common;

use std::path::Path;

use common::{stderr, stdout, yarn_ha};

fn path(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

#[test]
fn init_lays_out_a_cluster_that_conf_check_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("cluster");
    let out = yarn_ha(&[
        "minicluster",
        "init",
        "--dir",
        path(&base),
        "--rms",
        "3",
        "--nms",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = stdout(&out);
    assert!(
        printed.contains(&format!("yarn-ha minicluster start --dir {}", path(&base))),
        "{printed}"
    );
    assert!(base.join("pki/ca.pem").is_file());
    assert!(base.join("minicluster.json").is_file());
    assert!(!base.join("nm1").exists());
    for conf_dir in ["rm1/conf", "rm2/conf", "rm3/conf", "client/conf"] {
        let conf_dir = base.join(conf_dir);
        assert!(conf_dir.join("yarn-site.xml").is_file(), "{conf_dir:?}");
        assert!(
            conf_dir.join("capacity-scheduler.xml").is_file(),
            "{conf_dir:?}"
        );
    }

    let out = yarn_ha(&["conf", "check", "--conf-dir", path(&base.join("rm2/conf"))]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Every key of the generated layout is one yarn-ha honours, and the check ends in `ok:`.
    let listing = stdout(&out);
    let (keys, ok) = listing
        .trim_end()
        .rsplit_once('\n')
        .expect("a listing and a verdict");
    assert!(ok.starts_with("ok:"), "{listing}");
    assert!(
        keys.lines().all(|line| line.starts_with("honoured  ")),
        "{listing}"
    );
}

#[test]
fn init_refuses_a_directory_that_is_not_empty() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.txt"), "precious").unwrap();
    let out = yarn_ha(&["minicluster", "init", "--dir", path(dir.path())]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let message = stderr(&out);
    assert!(
        message.contains(path(dir.path())) && message.contains("is not empty"),
        "{message}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn start_and_restart_explain_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let out = yarn_ha(&["minicluster", "start", "--dir", path(dir.path())]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("minicluster init"),
        "{}",
        stderr(&out)
    );

    let out = yarn_ha(&["minicluster", "restart", "--dir", path(dir.path()), "rm1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no minicluster supervisor is running"),
        "{}",
        stderr(&out)
    );
}

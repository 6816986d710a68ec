//! What the tests that run `yarn-ha chaos run` as a process share: finding the binary, running
//! it to its end within a deadline, and quoting its output.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The `yarn-ha` binary: `YARN_HA_EXE`, or the one cargo built beside this test.
pub fn yarn_ha() -> PathBuf {
    if let Some(exe) = std::env::var_os("YARN_HA_EXE") {
        return PathBuf::from(exe);
    }
    // target/<profile>/deps/<test>-<hash> -> target/<profile>/yarn-ha
    let test = std::env::current_exe().expect("the test knows its own path");
    let exe = test
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("yarn-ha"))
        .expect("the test runs from a cargo target directory");
    assert!(
        exe.is_file(),
        "{} is missing: build it with `cargo build -p yarn-ha` (cargo test --workspace does) or \
         set YARN_HA_EXE",
        exe.display()
    );
    exe
}

/// How a `yarn-ha` run ended: its exit status and what it printed.
pub struct RunOutput {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `yarn-ha args...` in `dir` (its working directory, where its output files go too) to
/// its end; kills it and fails the test if it takes longer than `deadline`.
pub fn run_to_end(dir: &Path, args: &[&str], deadline: Duration) -> RunOutput {
    let stdout_file = dir.join("stdout");
    let stderr_file = dir.join("stderr");
    let mut child = Command::new(yarn_ha())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_file).unwrap())
        .stderr(std::fs::File::create(&stderr_file).unwrap())
        .spawn()
        .expect("start yarn-ha");
    let end = Instant::now() + deadline;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= end {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("yarn-ha {} took longer than {deadline:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    RunOutput {
        status,
        stdout: std::fs::read_to_string(stdout_file).unwrap(),
        stderr: std::fs::read_to_string(stderr_file).unwrap(),
    }
}

/// The last 40 lines of `text`, for failure messages.
pub fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

//! How the `yarn-ha` binary's integration tests run it: the built binary, with no
//! `YARN_CONF_DIR` inherited from the shell that runs the tests, and its output as text.

// Every integration test binary compiles this module and uses a different subset of it; what one
// binary leaves unused is used by another.
#![allow(dead_code)]

pub mod hadoop_clients;
pub mod process_cluster;
pub mod rest_client;

use std::process::{Command, Output};

/// A command for the `yarn-ha` binary this package built. `YARN_CONF_DIR` is removed so that a
/// developer's own configuration never leaks into a test.
pub fn yarn_ha_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_yarn-ha"));
    command.env_remove("YARN_CONF_DIR");
    command
}

/// Runs `command` to its end and returns its exit status and output; fails the test if it cannot
/// be started at all.
pub fn output(command: &mut Command) -> Output {
    command.output().expect("the yarn-ha binary runs")
}

/// Runs `yarn-ha args...` to its end.
pub fn yarn_ha(args: &[&str]) -> Output {
    output(yarn_ha_command().args(args))
}

/// What the command wrote to standard output, lossily decoded.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the command wrote to standard error, lossily decoded.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

//! `yarn-ha container -list <application attempt id>`: the containers of one attempt.

use std::path::Path;
use std::process::ExitCode;

use yarn_client::application_cli::UserCommand;

use crate::cli::ContainerArgs;

/// Lists the containers of the attempt; exits 0 on success and 1 with the failure on stderr.
pub fn run(conf_dir: Option<&Path>, args: ContainerArgs) -> anyhow::Result<ExitCode> {
    super::run_user_command(
        conf_dir,
        "container",
        &UserCommand::ListContainers(args.list),
    )
}

//! `yarn-ha applicationattempt -list <application id>`: the attempts of one application.

use std::path::Path;
use std::process::ExitCode;

use yarn_client::application_cli::UserCommand;

use crate::cli::ApplicationAttemptArgs;

/// Lists the attempts of the application; exits 0 on success and 1 with the failure on stderr.
pub fn run(conf_dir: Option<&Path>, args: ApplicationAttemptArgs) -> anyhow::Result<ExitCode> {
    super::run_user_command(
        conf_dir,
        "applicationattempt",
        &UserCommand::ListApplicationAttempts(args.list),
    )
}

//! `yarn-ha application`: maps Hadoop's options to a [`UserCommand`] and runs it with the
//! client crate.

use std::path::Path;
use std::process::ExitCode;

use yarn_client::application_cli::UserCommand;

use crate::cli::ApplicationArgs;

/// Runs `-list`, `-status`, `-kill`, `-movetoqueue` or `-updateLifetime` against the cluster
/// configured in `conf_dir`; exits 0 on success and 1 with the failure on stderr.
pub fn run(conf_dir: Option<&Path>, args: ApplicationArgs) -> anyhow::Result<ExitCode> {
    let command = command_of(args)?;
    super::run_user_command(conf_dir, "application", &command)
}

/// The action clap's `action` group guarantees exactly one of.
fn command_of(args: ApplicationArgs) -> anyhow::Result<UserCommand> {
    let command = if args.list {
        UserCommand::ListApplications {
            types: args.app_types,
            states: args.app_states,
            tags: args.app_tags,
        }
    } else if let Some(id) = args.status {
        UserCommand::ApplicationStatus(id)
    } else if let Some(id) = args.kill {
        UserCommand::KillApplication(id)
    } else if let Some(application_id) = args.move_to_queue {
        // clap already requires -queue with -movetoqueue; this keeps the adapter total.
        let queue = args.queue.ok_or_else(|| {
            anyhow::anyhow!("-movetoqueue {application_id} needs the target queue: -queue <queue>")
        })?;
        UserCommand::MoveApplication {
            application_id,
            queue,
        }
    } else if let Some(seconds) = args.update_lifetime {
        // clap already requires -appId with -updateLifetime.
        let application_id = args.app_id.ok_or_else(|| {
            anyhow::anyhow!("-updateLifetime {seconds} needs the application: -appId <id>")
        })?;
        UserCommand::UpdateLifetime {
            application_id,
            seconds,
        }
    } else {
        anyhow::bail!(
            "application needs one action: -list, -status, -kill, -movetoqueue or \
             -updateLifetime"
        )
    };
    Ok(command)
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use yarn_client::application_cli::ApplicationStateArg;
    use yarn_proto::ids::ApplicationId;

    use super::*;
    use crate::cli::{Cli, Command, hadoop_style_args};

    fn must_command(args: &[&str]) -> UserCommand {
        let words = ["yarn-ha", "application"]
            .iter()
            .chain(args)
            .map(|s| s.to_string());
        let cli = Cli::try_parse_from(hadoop_style_args(words)).unwrap();
        let Command::Application(args) = cli.command else {
            panic!("not application: {cli:?}");
        };
        command_of(args).unwrap()
    }

    const ID: &str = "application_1700000000000_0042";

    fn id() -> ApplicationId {
        ApplicationId::new(1_700_000_000_000, 42)
    }

    #[test]
    fn each_action_maps_to_its_command() {
        assert_eq!(
            must_command(&["-list"]),
            UserCommand::ListApplications {
                types: vec![],
                states: vec![],
                tags: vec![],
            }
        );
        assert_eq!(
            must_command(&[
                "-list",
                "-appStates",
                "ALL",
                "-appTypes",
                "YARN",
                "-appTags",
                "x,y"
            ]),
            UserCommand::ListApplications {
                types: vec!["YARN".to_owned()],
                states: vec![ApplicationStateArg::All],
                tags: vec!["x".to_owned(), "y".to_owned()],
            }
        );
        assert_eq!(
            must_command(&["-status", ID]),
            UserCommand::ApplicationStatus(id())
        );
        assert_eq!(
            must_command(&["-kill", ID]),
            UserCommand::KillApplication(id())
        );
        assert_eq!(
            must_command(&["-movetoqueue", ID, "-queue", "root.b"]),
            UserCommand::MoveApplication {
                application_id: id(),
                queue: "root.b".to_owned(),
            }
        );
        assert_eq!(
            must_command(&["-appId", ID, "-updateLifetime", "600"]),
            UserCommand::UpdateLifetime {
                application_id: id(),
                seconds: 600,
            }
        );
    }

    #[test]
    fn update_lifetime_needs_the_application() {
        let words = ["yarn-ha", "application", "-updateLifetime", "600"]
            .iter()
            .map(|s| s.to_string());
        let err = Cli::try_parse_from(hadoop_style_args(words)).unwrap_err();
        assert!(err.to_string().contains("--appId"), "{err}");
    }
}

//! `yarn-ha node`: maps Hadoop's options to a [`UserCommand`] and runs it with the client
//! crate.

use std::path::Path;
use std::process::ExitCode;

use yarn_client::application_cli::UserCommand;

use crate::cli::NodeArgs;

/// Runs `-list` or `-status` against the cluster configured in `conf_dir`; exits 0 on success
/// and 1 with the failure on stderr.
pub fn run(conf_dir: Option<&Path>, args: NodeArgs) -> anyhow::Result<ExitCode> {
    let command = command_of(args)?;
    super::run_user_command(conf_dir, "node", &command)
}

/// The action clap's `action` group guarantees exactly one of.
fn command_of(args: NodeArgs) -> anyhow::Result<UserCommand> {
    if args.list {
        Ok(UserCommand::ListNodes {
            states: args.states,
            all: args.all,
            show_details: args.show_details,
        })
    } else if let Some(id) = args.status {
        Ok(UserCommand::NodeStatus(id))
    } else {
        anyhow::bail!("node needs one action: -list or -status")
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use yarn_client::application_cli::NodeStateArg;
    use yarn_proto::ids::NodeId;
    use yarn_proto::pb::NodeStateProto;

    use super::*;
    use crate::cli::{Cli, Command, hadoop_style_args};

    fn must_command(args: &[&str]) -> UserCommand {
        let words = ["yarn-ha", "node"]
            .iter()
            .chain(args)
            .map(|s| s.to_string());
        let cli = Cli::try_parse_from(hadoop_style_args(words)).unwrap();
        let Command::Node(args) = cli.command else {
            panic!("not node: {cli:?}");
        };
        command_of(args).unwrap()
    }

    #[test]
    fn each_action_maps_to_its_command() {
        assert_eq!(
            must_command(&["-list"]),
            UserCommand::ListNodes {
                states: vec![],
                all: false,
                show_details: false,
            }
        );
        assert_eq!(
            must_command(&["-list", "-states", "unhealthy,LOST"]),
            UserCommand::ListNodes {
                states: vec![
                    NodeStateArg(NodeStateProto::NsUnhealthy),
                    NodeStateArg(NodeStateProto::NsLost)
                ],
                all: false,
                show_details: false,
            }
        );
        assert_eq!(
            must_command(&["-list", "-all", "-showDetails"]),
            UserCommand::ListNodes {
                states: vec![],
                all: true,
                show_details: true,
            }
        );
        assert_eq!(
            must_command(&["-status", "nm1.example.com:8041"]),
            UserCommand::NodeStatus(NodeId::new("nm1.example.com", 8041))
        );
    }
}

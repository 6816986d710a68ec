//! `yarn-ha cluster`: Hadoop's cluster-wide queries, mapped to a [`UserCommand`] and run with
//! the client crate.

use std::path::Path;
use std::process::ExitCode;

use yarn_client::application_cli::UserCommand;

use crate::cli::ClusterArgs;

/// Runs `-lnl` against the cluster configured in `conf_dir`; exits 0 on success and 1 with the
/// failure on stderr.
pub fn run(conf_dir: Option<&Path>, args: ClusterArgs) -> anyhow::Result<ExitCode> {
    let command = command_of(&args)?;
    super::run_user_command(conf_dir, "cluster", &command)
}

/// The action clap's `action` group guarantees exactly one of.
fn command_of(args: &ClusterArgs) -> anyhow::Result<UserCommand> {
    if args.list_node_labels {
        Ok(UserCommand::ListNodeLabels)
    } else {
        anyhow::bail!("cluster needs one action: -lnl (--list-node-labels)")
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command, hadoop_style_args};

    #[test]
    fn both_spellings_list_the_node_labels() {
        for option in ["-lnl", "--list-node-labels"] {
            let words = ["yarn-ha", "cluster", option].map(String::from);
            let cli = Cli::try_parse_from(hadoop_style_args(words)).unwrap();
            let Command::Cluster(args) = cli.command else {
                panic!("not cluster: {cli:?}");
            };
            assert_eq!(command_of(&args).unwrap(), UserCommand::ListNodeLabels);
        }
        assert!(Cli::try_parse_from(["yarn-ha", "cluster"]).is_err());
    }
}

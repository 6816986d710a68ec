//! `yarn-ha rmadmin`: maps Hadoop's options to an [`RmAdminCommand`] and runs it with the
//! client crate.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_client::rmadmin::{self, RmAdminCommand, RmAdminOutcome};
use yarn_conf::Configuration;

use crate::cli::{RmAdminArgs, SchedulerConfArgs};

/// Runs one rmadmin operation against the cluster configured in `conf_dir`.
///
/// Prints the operation's output on stdout and each failure as one line on stderr (what failed,
/// on which replica and address); exits 0 without failures, 1 with any. `-getAllServiceState`
/// prints its report and fails when a replica refused the caller. A configuration directory is
/// required: without one there are neither replica addresses nor certificates to use.
pub fn run(conf_dir: Option<&Path>, args: RmAdminArgs) -> anyhow::Result<ExitCode> {
    run_command(conf_dir, "rmadmin", command_of(args)?)
}

/// Runs `yarn-ha schedulerconf`: one change of a mutable queue configuration, its format, or
/// its printing, as an admin operation on the leader.
pub fn schedulerconf(conf_dir: Option<&Path>, args: SchedulerConfArgs) -> anyhow::Result<ExitCode> {
    let command = if args.format {
        RmAdminCommand::FormatSchedulerConf
    } else if let Some(version) = args.get_conf {
        RmAdminCommand::GetSchedulerConf { version }
    } else if args.versions {
        RmAdminCommand::ListSchedulerConfVersions
    } else if let Some(version) = args.restore {
        RmAdminCommand::RestoreSchedulerConf { version }
    } else if args.add.is_none()
        && args.remove.is_none()
        && args.update.is_none()
        && args.global.is_none()
    {
        anyhow::bail!(
            "Invalid Command Usage: give -add, -remove, -update, -global, -format, -getconf, \
             -versions or -restore (see yarn-ha schedulerconf --help)"
        );
    } else {
        RmAdminCommand::UpdateSchedulerConf {
            add: args.add,
            remove: args.remove,
            update: args.update,
            global: args.global,
        }
    };
    run_command(conf_dir, "schedulerconf", command)
}

fn run_command(
    conf_dir: Option<&Path>,
    name: &str,
    command: RmAdminCommand,
) -> anyhow::Result<ExitCode> {
    let dir = conf_dir.with_context(|| {
        format!("{name} needs a configuration directory: pass --conf-dir DIR or set YARN_CONF_DIR")
    })?;
    let conf = Configuration::load_dir(dir)?;
    let outcome = rmadmin::run_blocking(&conf, &command).unwrap_or_else(|err| RmAdminOutcome {
        output: String::new(),
        failures: vec![err],
    });
    print!("{}", outcome.output);
    for failure in &outcome.failures {
        eprintln!("{failure}");
    }
    Ok(if outcome.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The operation clap's `operation` group guarantees exactly one of.
fn command_of(args: RmAdminArgs) -> anyhow::Result<RmAdminCommand> {
    let force_manual = args.force_manual;
    let command = if let Some(rm_id) = args.get_service_state {
        RmAdminCommand::GetServiceState { rm_id }
    } else if args.get_all_service_state {
        RmAdminCommand::GetAllServiceState
    } else if let Some(rm_id) = args.check_health {
        RmAdminCommand::CheckHealth { rm_id }
    } else if let Some(values) = args.transition_to_active {
        let (rm_id, force_manual) = transition_target("transitionToActive", values, force_manual)?;
        RmAdminCommand::TransitionToActive {
            rm_id,
            force_manual,
        }
    } else if let Some(values) = args.transition_to_standby {
        let (rm_id, force_manual) = transition_target("transitionToStandby", values, force_manual)?;
        RmAdminCommand::TransitionToStandby {
            rm_id,
            force_manual,
        }
    } else if args.refresh_queues {
        RmAdminCommand::RefreshQueues
    } else if args.refresh_nodes {
        RmAdminCommand::RefreshNodes
    } else if args.refresh_admin_acls {
        RmAdminCommand::RefreshAdminAcls
    } else if args.get_cluster_membership {
        RmAdminCommand::GetClusterMembership
    } else if let Some(values) = args.add_to_cluster {
        let [rm_id, raft_address] = <[String; 2]>::try_from(values).map_err(|values| {
            anyhow::anyhow!(
                "-addToCluster takes an rm id and a Raft address, got {} value(s)",
                values.len()
            )
        })?;
        RmAdminCommand::AddToCluster {
            rm_id,
            raft_address,
        }
    } else if let Some(rm_id) = args.remove_from_cluster {
        RmAdminCommand::RemoveFromCluster { rm_id }
    } else if let Some(rm_id) = args.get_state_digest {
        RmAdminCommand::GetStateDigest { rm_id }
    } else if let Some(labels) = args.add_to_cluster_node_labels {
        RmAdminCommand::AddToClusterNodeLabels { labels }
    } else if let Some(labels) = args.remove_from_cluster_node_labels {
        RmAdminCommand::RemoveFromClusterNodeLabels { labels }
    } else if let Some(mappings) = args.replace_labels_on_node {
        RmAdminCommand::ReplaceLabelsOnNode {
            mappings,
            fail_on_unknown_nodes: args.fail_on_unknown_nodes,
        }
    } else {
        anyhow::bail!("rmadmin needs one operation, e.g. -getServiceState <rm-id>")
    };
    Ok(command)
}

/// The rm id of a manual transition and whether `--forcemanual` was given, before the id (as
/// Hadoop documents it, so among the option's values), after it, or elsewhere on the line.
fn transition_target(
    option: &str,
    values: Vec<String>,
    force_manual: bool,
) -> anyhow::Result<(String, bool)> {
    let (flags, ids): (Vec<String>, Vec<String>) =
        values.into_iter().partition(|value| value == FORCE_MANUAL);
    match <[String; 1]>::try_from(ids) {
        Ok([rm_id]) => Ok((rm_id, force_manual || !flags.is_empty())),
        Err(ids) => {
            anyhow::bail!("-{option} takes one rm id, optionally after {FORCE_MANUAL}; got {ids:?}")
        }
    }
}

/// The flag as clap sees it after `hadoop_style_args` rewrote `-forcemanual`.
const FORCE_MANUAL: &str = "--forcemanual";

#[cfg(test)]
mod tests {
    use super::*;

    fn values(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn forcemanual_is_found_before_or_after_the_id_or_as_its_own_flag() {
        let target =
            |words: &[&str], flag| transition_target("transitionToActive", values(words), flag);
        assert_eq!(target(&["rm2"], false).unwrap(), ("rm2".to_owned(), false));
        assert_eq!(target(&["rm2"], true).unwrap(), ("rm2".to_owned(), true));
        assert_eq!(
            target(&["--forcemanual", "rm2"], false).unwrap(),
            ("rm2".to_owned(), true)
        );
        assert_eq!(
            target(&["rm2", "--forcemanual"], false).unwrap(),
            ("rm2".to_owned(), true)
        );
        for bad in [&["--forcemanual"][..], &["rm1", "rm2"]] {
            let err = target(bad, false).unwrap_err().to_string();
            assert!(err.contains("-transitionToActive takes one rm id"), "{err}");
        }
    }
}

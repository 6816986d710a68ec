//! [`UserCommand`]: one run of `application`, `node`, `applicationattempt` or `container`.

use std::io::Write;

use yarn_conf::Configuration;
use yarn_proto::expiry_time::format_expiry_time;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};

use super::application::{
    format_application_list, format_application_report, format_kill_outcome, format_kill_started,
    format_lifetime_update_started, format_lifetime_updated, format_move_completed,
    format_move_started, selected_application_types,
};
use super::application_attempt::format_attempt_list;
use super::container::format_container_list;
use super::node::{find_node_report, format_node_labels, format_node_list, format_node_report};
use super::state_args::{
    ApplicationStateArg, NodeStateArg, selected_application_states, selected_node_states,
};
use crate::{ApplicationFilter, Error, KillOutcome, YarnClient, is_final_application_state};

/// One user command, its arguments already parsed (ids and state words are checked by their
/// `FromStr` before anything runs).
#[derive(Debug, Clone, PartialEq)]
pub enum UserCommand {
    /// `application -list [-appStates S,...|ALL] [-appTypes T,...] [-appTags T,...]`.
    ListApplications {
        /// `-appTypes` words, as given.
        types: Vec<String>,
        /// `-appStates` words; none means SUBMITTED, ACCEPTED and RUNNING.
        states: Vec<ApplicationStateArg>,
        /// `-appTags` words, as given.
        tags: Vec<String>,
    },
    /// `application -status <application id>`.
    ApplicationStatus(ApplicationId),
    /// `application -kill <application id>`.
    KillApplication(ApplicationId),
    /// `application -movetoqueue <application id> -queue <queue>`.
    MoveApplication {
        /// The application to move.
        application_id: ApplicationId,
        /// The leaf queue to move it to.
        queue: String,
    },
    /// `application -appId <application id> -updateLifetime <seconds>`: the lifetime ends that
    /// many seconds from now.
    UpdateLifetime {
        /// The application.
        application_id: ApplicationId,
        /// Seconds from now.
        seconds: u64,
    },
    /// `node -list [-states S,...] [-all]`.
    ListNodes {
        /// `-states` words; none means RUNNING.
        states: Vec<NodeStateArg>,
        /// `-all`: every state, whatever `-states` says.
        all: bool,
        /// `-showDetails`: each node's resources and labels below its row.
        show_details: bool,
    },
    /// `node -status <node id>`.
    NodeStatus(NodeId),
    /// `cluster -lnl`: the cluster's node labels.
    ListNodeLabels,
    /// `applicationattempt -list <application id>`.
    ListApplicationAttempts(ApplicationId),
    /// `container -list <application attempt id>`.
    ListContainers(ApplicationAttemptId),
}

impl UserCommand {
    /// Runs the command with `client` and writes what Hadoop's `yarn` prints to `out`. The
    /// announcing lines of `-kill`, `-movetoqueue` and `-updateLifetime` are written (and flushed) before the RM
    /// is asked, so a user sees what is under way while it runs.
    ///
    /// # Errors
    ///
    /// Those of the [`YarnClient`] calls made; [`Error::NodeNotFound`] for `node -status` of a
    /// node the RM does not report; [`Error::WriteOutput`] when `out` refuses the output.
    pub async fn run(&self, client: &YarnClient, out: &mut dyn Write) -> Result<(), Error> {
        match self {
            Self::ListApplications {
                types,
                states,
                tags,
            } => {
                let filter = ApplicationFilter {
                    states: selected_application_states(states),
                    types: selected_application_types(types),
                    tags: tags
                        .iter()
                        .map(|tag| tag.trim().to_owned())
                        .filter(|tag| !tag.is_empty())
                        .collect(),
                    ..Default::default()
                };
                let reports = client.get_applications(&filter).await?;
                let text =
                    format_application_list(&filter.types, &filter.states, &filter.tags, &reports);
                emit(out, &text)
            }
            Self::ApplicationStatus(id) => {
                let report = client.get_application_report(*id).await?;
                emit(out, &format_application_report(&report))
            }
            Self::KillApplication(id) => {
                // Checked here as well as in kill_application, so that an ended application
                // gets no "Killing" line, as in Hadoop.
                let state = client
                    .get_application_report(*id)
                    .await?
                    .yarn_application_state();
                if is_final_application_state(state) {
                    return emit(
                        out,
                        &format_kill_outcome(*id, KillOutcome::AlreadyFinished(state)),
                    );
                }
                emit(out, &format_kill_started(*id))?;
                let outcome = client.kill_application(*id).await?;
                emit(out, &format_kill_outcome(*id, outcome))
            }
            Self::MoveApplication {
                application_id,
                queue,
            } => {
                emit(out, &format_move_started(*application_id, queue))?;
                client.move_application(*application_id, queue).await?;
                emit(out, &format_move_completed())
            }
            Self::UpdateLifetime {
                application_id,
                seconds,
            } => {
                let secs_ms = i64::try_from(seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
                let requested = format_expiry_time(yarn_security::now_ms().saturating_add(secs_ms));
                emit(out, &format_lifetime_update_started(*application_id))?;
                let in_force = client
                    .update_application_lifetime(*application_id, &requested)
                    .await?;
                emit(
                    out,
                    &format_lifetime_updated(*application_id, &requested, &in_force),
                )
            }
            Self::ListNodes {
                states,
                all,
                show_details,
            } => {
                let reports = client
                    .get_cluster_nodes(&selected_node_states(states, *all))
                    .await?;
                emit(out, &format_node_list(&reports, *show_details))
            }
            Self::ListNodeLabels => {
                let labels = client.get_cluster_node_labels().await?;
                emit(out, &format_node_labels(&labels))
            }
            Self::NodeStatus(id) => {
                let reports = client.get_cluster_nodes(&[]).await?;
                let report = find_node_report(&reports, id).ok_or_else(|| Error::NodeNotFound {
                    node_id: id.to_string(),
                })?;
                emit(out, &format_node_report(report))
            }
            Self::ListApplicationAttempts(id) => {
                let reports = client.get_application_attempts(*id).await?;
                emit(out, &format_attempt_list(&reports))
            }
            Self::ListContainers(attempt) => {
                let reports = client.get_containers(*attempt).await?;
                emit(out, &format_container_list(&reports))
            }
        }
    }
}

/// Runs `command` against the cluster configured in `conf` on a runtime of its own, writing its
/// output to `out`. For the binary, which has no async runtime.
///
/// # Errors
///
/// Those of [`YarnClient::from_conf`] and [`UserCommand::run`], and [`Error::Runtime`] when no
/// runtime can be started.
pub fn run_blocking(
    conf: &Configuration,
    command: &UserCommand,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let client = YarnClient::from_conf(conf)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Runtime { source })?;
    runtime.block_on(command.run(&client, out))
}

/// Writes `text` to `out` and flushes it, so that announcing lines appear before a long call.
fn emit(out: &mut dyn Write, text: &str) -> Result<(), Error> {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|source| Error::WriteOutput { source })
}

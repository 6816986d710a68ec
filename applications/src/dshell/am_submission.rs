//! [`AmSubmission`]: how a sample application's client submits its ApplicationMaster (the
//! `yarn-ha` binary itself, run with an AM subcommand) and waits for the application to end.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use yarn_client::application_cli::{application_state_name, final_status_name};
use yarn_client::{DEFAULT_POLL_INTERVAL, KillOutcome, YarnClient, escape_for_terminal};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;
use yarn_security::hadoop_credentials::Credentials;

use super::option_words::{path_text, shell_command_line};
use crate::Error;

/// The variable that tells the ApplicationMaster (and tasks) where the client's configuration
/// is: RM addresses and the TLS identity.
pub const CONF_DIR_ENV: &str = "YARN_CONF_DIR";

/// The application type of the sample applications, YARN's default.
const APPLICATION_TYPE: &str = "YARN";

/// An ApplicationMaster to submit: the binary and configuration directory it runs with, and
/// the application's name, queue, priority, AM container size and node label expression.
#[derive(Debug, Clone)]
pub(crate) struct AmSubmission {
    /// The `yarn-ha` binary, absolute.
    pub(crate) exe: String,
    /// The client's configuration directory, absolute, handed to the AM and its tasks.
    pub(crate) conf_dir: String,
    pub(crate) name: String,
    pub(crate) queue: String,
    pub(crate) priority: i32,
    pub(crate) memory_mb: i64,
    pub(crate) vcores: i32,
    /// The application's node label expression: the partition of its AM and of the asks that
    /// name none (empty: the queue's default).
    pub(crate) node_label_expression: String,
}

/// `conf_dir` and `exe` as absolute paths in text, as a container started elsewhere needs them.
///
/// # Errors
///
/// [`Error::PathUnresolvable`] when one does not exist; [`Error::NonUtf8Path`].
pub(crate) fn absolute_paths(conf_dir: &Path, exe: &Path) -> Result<(String, String), Error> {
    let resolve = |what: &'static str, path: &Path| {
        let absolute = std::fs::canonicalize(path).map_err(|source| Error::PathUnresolvable {
            what,
            path: path.to_owned(),
            source,
        })?;
        path_text(what, &absolute).map(str::to_owned)
    };
    Ok((
        resolve("configuration directory", conf_dir)?,
        resolve("yarn-ha executable", exe)?,
    ))
}

impl AmSubmission {
    /// The command line running the binary's `subcommand` with `args` (and the global
    /// `--conf-dir`), every word quoted, and its output in the container's log directory as
    /// `AppMaster.stdout` and `AppMaster.stderr`.
    pub(crate) fn command(&self, subcommand: &str, args: &[String]) -> String {
        let mut words = vec![
            self.exe.clone(),
            "--conf-dir".to_owned(),
            self.conf_dir.clone(),
            subcommand.to_owned(),
        ];
        words.extend_from_slice(args);
        format!(
            "{} 1><LOG_DIR>/AppMaster.stdout 2><LOG_DIR>/AppMaster.stderr",
            shell_command_line(&words)
        )
    }

    /// The environment of the AM and its tasks: `YARN_CONF_DIR`.
    pub(crate) fn environment(&self) -> BTreeMap<String, String> {
        BTreeMap::from([(CONF_DIR_ENV.to_owned(), self.conf_dir.clone())])
    }

    /// The submission of application `id` whose AM runs `subcommand` with `args`.
    pub(crate) fn context(
        &self,
        id: ApplicationId,
        subcommand: &str,
        args: &[String],
    ) -> pb::ApplicationSubmissionContextProto {
        pb::ApplicationSubmissionContextProto {
            application_id: Some(id.into()),
            application_name: Some(self.name.clone()),
            queue: Some(self.queue.clone()),
            priority: Some(pb::PriorityProto {
                priority: self.priority,
            }),
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                environment: self.environment(),
                commands: vec![self.command(subcommand, args)],
                // No credentials of its own, written as Hadoop clients such as Spark write
                // them (`HDTS\0\0\0`); the RM adds the AMRMToken.
                tokens: Credentials::new().encode(),
                ..Default::default()
            }),
            resource: Some(pb::ResourceProto {
                memory: self.memory_mb,
                virtual_cores: self.vcores,
                ..Default::default()
            }),
            application_type: Some(APPLICATION_TYPE.to_owned()),
            node_label_expression: self.node_label_expression.clone(),
            ..Default::default()
        }
    }

    /// Submits application `id` with its AM running `subcommand` with `args`, prints
    /// `Submitted application <id>`, waits up to `timeout` for a final state and prints it with
    /// the diagnostics. Past `timeout` the application is killed, as Hadoop's distributed shell
    /// client does.
    ///
    /// # Errors
    ///
    /// Those of [`YarnClient::submit_application`] and
    /// [`YarnClient::wait_for_final_report`]
    /// ([`ApplicationWaitTimedOut`](yarn_client::Error::ApplicationWaitTimedOut) after the
    /// kill, even if the kill failed: that failure is printed);
    /// [`WriteOutput`](yarn_client::Error::WriteOutput).
    pub(crate) async fn submit_and_wait(
        &self,
        client: &YarnClient,
        id: ApplicationId,
        subcommand: &str,
        args: &[String],
        timeout: Duration,
        out: &mut impl Write,
    ) -> Result<pb::ApplicationReportProto, Error> {
        client
            .submit_application(self.context(id, subcommand, args))
            .await?;
        emit(out, &format!("Submitted application {id}\n"))?;
        let deadline = tokio::time::Instant::now() + timeout;
        let report = match client
            .wait_for_final_report(id, DEFAULT_POLL_INTERVAL, deadline)
            .await
        {
            Ok(report) => report,
            Err(err @ yarn_client::Error::ApplicationWaitTimedOut { .. }) => {
                emit(
                    out,
                    &format!(
                        "Application {id} did not finish within {} ms; killing it\n",
                        timeout.as_millis()
                    ),
                )?;
                let killed = match client.kill_application(id).await {
                    Ok(KillOutcome::Killed) => "Killed it".to_owned(),
                    Ok(KillOutcome::AlreadyFinished(state)) => {
                        format!("It had already ended as {}", application_state_name(state))
                    }
                    Err(kill) => format!("Killing it failed: {kill}"),
                };
                emit(out, &format!("{killed}\n"))?;
                return Err(err.into());
            }
            Err(err) => return Err(err.into()),
        };
        emit(out, &format_final_report(id, &report))?;
        Ok(report)
    }
}

/// The final state, final status and diagnostics of an ended application, as the clients
/// print them. The diagnostics keep their lines (one per container, as the ApplicationMaster
/// wrote them), each escaped for the terminal.
pub(crate) fn format_final_report(
    id: ApplicationId,
    report: &pb::ApplicationReportProto,
) -> String {
    let mut text = format!(
        "Application {id} ended with state {} and final status {}\n",
        application_state_name(report.yarn_application_state()),
        final_status_name(report.final_application_status())
    );
    if !report.diagnostics.trim().is_empty() {
        text.push_str("Diagnostics:\n");
        // Split on line feeds alone, so that a carriage return is escaped, not dropped.
        for line in report.diagnostics.trim_end().split('\n') {
            text.push_str(&escape_for_terminal(line));
            text.push('\n');
        }
    }
    text
}

/// Writes `text` to `out` and flushes it, so that progress lines appear while the client
/// waits.
pub(crate) fn emit(out: &mut impl Write, text: &str) -> Result<(), Error> {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|source| Error::Client(yarn_client::Error::WriteOutput { source }))
}

/// A single-threaded runtime for the blocking entry points, which the binary calls without a
/// runtime of its own.
///
/// # Errors
///
/// [`Runtime`](yarn_client::Error::Runtime) when the operating system refuses its resources.
pub(crate) fn current_thread_runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Client(yarn_client::Error::Runtime { source }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission() -> AmSubmission {
        AmSubmission {
            exe: "/opt/yarn ha/bin/yarn-ha".to_owned(),
            conf_dir: "/etc/yarn-ha/conf".to_owned(),
            name: "DistributedShell".to_owned(),
            queue: "root.a".to_owned(),
            priority: 3,
            memory_mb: 128,
            vcores: 1,
            node_label_expression: "GPU".to_owned(),
        }
    }

    #[test]
    fn the_am_command_runs_the_binary_with_the_conf_dir_and_logs_to_the_log_dir() {
        let command = submission().command("dshell-am", &["--shell_command=echo 'x'".to_owned()]);
        assert_eq!(
            command,
            "'/opt/yarn ha/bin/yarn-ha' '--conf-dir' '/etc/yarn-ha/conf' 'dshell-am' \
             '--shell_command=echo '\\\\''x'\\\\''' \
             1><LOG_DIR>/AppMaster.stdout 2><LOG_DIR>/AppMaster.stderr"
        );
    }

    #[test]
    fn the_context_names_the_queue_priority_size_type_label_conf_dir_and_no_tokens() {
        let id = ApplicationId::new(1_700_000_000_000, 4);
        let context = submission().context(id, "dshell-am", &[]);
        assert_eq!(context.application_id, Some(id.into()));
        assert_eq!(
            context.application_name.as_deref(),
            Some("DistributedShell")
        );
        assert_eq!(context.queue.as_deref(), Some("root.a"));
        assert_eq!(context.priority, Some(pb::PriorityProto { priority: 3 }));
        assert_eq!(context.application_type.as_deref(), Some("YARN"));
        assert_eq!(context.node_label_expression, "GPU");
        let resource = context.resource.unwrap();
        assert_eq!((resource.memory, resource.virtual_cores), (128, 1));
        let spec = context.am_container_spec.unwrap();
        assert_eq!(spec.environment[CONF_DIR_ENV], "/etc/yarn-ha/conf");
        assert_eq!(spec.commands.len(), 1);
        assert_eq!(
            spec.tokens, b"HDTS\0\0\0",
            "empty Hadoop credentials, version 0"
        );
    }

    #[test]
    fn the_final_report_prints_state_status_and_diagnostics() {
        let id = ApplicationId::new(1_700_000_000_000, 4);
        let report = pb::ApplicationReportProto {
            yarn_application_state: pb::YarnApplicationStateProto::Finished as i32,
            final_application_status: pb::FinalApplicationStatusProto::AppFailed as i32,
            diagnostics: "c1 on h:1 GUARANTEED exit 1\n0 of 1 containers succeeded\n".to_owned(),
            ..Default::default()
        };
        assert_eq!(
            format_final_report(id, &report),
            "Application application_1700000000000_0004 ended with state FINISHED and final \
             status FAILED\nDiagnostics:\nc1 on h:1 GUARANTEED exit 1\n0 of 1 containers \
             succeeded\n"
        );
    }

    #[test]
    fn the_final_report_escapes_each_line_of_the_diagnostics() {
        let id = ApplicationId::new(1_700_000_000_000, 4);
        let report = pb::ApplicationReportProto {
            yarn_application_state: pb::YarnApplicationStateProto::Failed as i32,
            diagnostics: "c1 on h:1 GUARANTEED exit 1: \x1b]0;pwned\x07evil\r\n\
                          0 of 1 containers succeeded\x1b[1A\x1b[2K"
                .to_owned(),
            ..Default::default()
        };
        let text = format_final_report(id, &report);
        assert!(!text.contains(['\x1b', '\x07', '\r']), "{text:?}");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "Diagnostics:",
                "c1 on h:1 GUARANTEED exit 1: \\e]0;pwned\\aevil\\r",
                "0 of 1 containers succeeded\\e[1A\\e[2K",
            ]
        );
    }
}

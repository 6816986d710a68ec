//! The distributed shell's client: submits the ApplicationMaster and waits for the
//! application to end.

use std::io::Write;
use std::path::Path;

use yarn_client::YarnClient;
use yarn_conf::Configuration;
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

use super::DshellOptions;
use super::am_submission::{AmSubmission, absolute_paths, current_thread_runtime};
use super::container_result::{ContainerResult, parse_diagnostics};
use crate::Error;

/// The binary's subcommand that runs the distributed shell's ApplicationMaster; it takes the
/// words of [`DshellOptions::to_am_args`].
pub const DSHELL_AM_SUBCOMMAND: &str = "dshell-am";

/// How a distributed-shell application ended.
#[derive(Debug, Clone, PartialEq)]
pub struct DshellOutcome {
    /// The application.
    pub application_id: ApplicationId,
    /// Its final state: FINISHED, FAILED or KILLED.
    pub final_state: pb::YarnApplicationStateProto,
    /// The final status its ApplicationMaster reported (UNDEFINED when it never did).
    pub final_status: pb::FinalApplicationStatusProto,
    /// Each container's end, as the ApplicationMaster listed them in its diagnostics.
    pub containers: Vec<ContainerResult>,
    /// The application's diagnostics as the RM reported them.
    pub diagnostics: String,
}

impl DshellOutcome {
    /// Whether the application FINISHED with final status SUCCEEDED: the only outcome for
    /// which the `dshell` command exits 0.
    pub fn succeeded(&self) -> bool {
        self.final_state == pb::YarnApplicationStateProto::Finished
            && self.final_status == pb::FinalApplicationStatusProto::AppSucceeded
    }
}

/// Runs a distributed-shell application and waits for it, blocking on a runtime of its own.
///
/// Takes a new application id, submits an ApplicationMaster that runs
/// `<exe> --conf-dir <conf_dir> dshell-am <options.to_am_args()>` (every word shell-quoted,
/// output in the AM container's log directory as `AppMaster.stdout` and `AppMaster.stderr`)
/// with `YARN_CONF_DIR=<conf_dir>` and the options' queue, priority, name and AM size; prints
/// `Submitted application <id>` to `out`; waits up to `options.timeout` (then kills the
/// application); prints the final state, final status and diagnostics (one line per
/// container); and returns them. `conf_dir` and `exe` are made absolute, since the AM runs in
/// another directory, and must be readable where the NodeManagers run.
///
/// # Errors
///
/// Those of [`DshellOptions::validate`]; [`Error::PathUnresolvable`] and
/// [`Error::NonUtf8Path`] for `conf_dir` or `exe`; those of [`YarnClient::from_conf`] and its
/// calls, [`ApplicationWaitTimedOut`](yarn_client::Error::ApplicationWaitTimedOut) past the
/// timeout; [`WriteOutput`](yarn_client::Error::WriteOutput);
/// [`Runtime`](yarn_client::Error::Runtime). An application that ends FAILED is an `Ok`
/// outcome, not an error.
pub fn run_client(
    conf_dir: &Path,
    conf: &Configuration,
    exe: &Path,
    options: &DshellOptions,
    out: &mut impl Write,
) -> Result<DshellOutcome, Error> {
    options.validate()?;
    let (conf_dir, exe) = absolute_paths(conf_dir, exe)?;
    let submission = AmSubmission {
        exe,
        conf_dir,
        name: options.appname.clone(),
        queue: options.queue.clone(),
        priority: options.priority,
        memory_mb: options.master_memory_mb,
        vcores: options.master_vcores,
        node_label_expression: options.node_label_expression.clone(),
    };
    let client = YarnClient::from_conf(conf)?;
    current_thread_runtime()?.block_on(async {
        let application_id = client.get_new_application().await?.application_id;
        let report = submission
            .submit_and_wait(
                &client,
                application_id,
                DSHELL_AM_SUBCOMMAND,
                &options.to_am_args(),
                options.timeout,
                out,
            )
            .await?;
        Ok(DshellOutcome {
            application_id,
            final_state: report.yarn_application_state(),
            final_status: report.final_application_status(),
            containers: parse_diagnostics(&report.diagnostics),
            diagnostics: report.diagnostics,
        })
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// What YARN's NodeManager does to a command line before its shell runs it.
    fn nodemanager_expansion(command: &str, log_dir: &Path) -> String {
        command
            .replace("<LOG_DIR>", log_dir.to_str().unwrap())
            .replace("<CPS>", ":")
            .replace("<ADD_OPENS>", "")
            .replace("{{", "$")
            .replace("}}", "")
    }

    #[test]
    fn the_am_gets_back_the_options_the_client_sent_through_the_nodemanager_and_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        // Stands in for the binary: prints the words it was given, NUL-separated.
        let exe = dir.path().join("yarn ha");
        std::fs::write(&exe, "#!/bin/sh\nprintf '%s\\0' \"$@\"\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let submission = AmSubmission {
            exe: exe.to_str().unwrap().to_owned(),
            conf_dir: "/etc/yarn ha".to_owned(),
            name: "n".to_owned(),
            queue: "default".to_owned(),
            priority: 0,
            memory_mb: 128,
            vcores: 1,
            node_label_expression: String::new(),
        };
        let mut options = DshellOptions::new(
            "echo \"it's {{HOME}}\" > <LOG_DIR>/x; awk '{if(1){print}}' </dev/null",
        );
        options.shell_args = vec!["-la".to_owned(), "a b".to_owned()];
        options.shell_env = vec![("CLASSPATH".to_owned(), "{{PWD}}<CPS>'x'".to_owned())];
        let command = submission.command(DSHELL_AM_SUBCOMMAND, &options.to_am_args());
        // The last line of the NodeManager's launch script.
        let line = format!(
            "exec /bin/bash -c \"{}\"",
            nodemanager_expansion(&command, dir.path())
        );
        let status = std::process::Command::new("/bin/bash")
            .args(["-c", &line])
            .status()
            .unwrap();
        assert!(status.success());
        let printed = std::fs::read_to_string(dir.path().join("AppMaster.stdout")).unwrap();
        let words: Vec<String> = printed.split_terminator('\0').map(str::to_owned).collect();
        assert_eq!(words[..3], ["--conf-dir", "/etc/yarn ha", "dshell-am"]);
        assert_eq!(DshellOptions::parse_args(&words[3..]).unwrap(), options);
    }
}

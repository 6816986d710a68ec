//! The pi example's client: submits the ApplicationMaster with a fresh result directory and
//! waits for the estimate.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use yarn_client::YarnClient;
use yarn_conf::Configuration;
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

use super::application_master::parse_estimate;
use super::{PiAmOptions, PiOptions};
use crate::Error;
use crate::dshell::{
    AM_RUN_LIMIT, AmSubmission, ContainerResult, absolute_paths, current_thread_runtime, emit,
    parse_diagnostics,
};

/// The binary's subcommand that runs the pi ApplicationMaster; it takes the words of
/// [`PiAmOptions::to_am_args`].
pub const PI_AM_SUBCOMMAND: &str = "pi-am";

/// How long the client waits for the application before killing it: the ApplicationMaster's
/// own limit and ten minutes more for the AM container to be scheduled and to report.
pub const PI_CLIENT_TIMEOUT: Duration = AM_RUN_LIMIT.saturating_add(Duration::from_secs(600));

/// Memory of the pi ApplicationMaster's container in MB.
pub const PI_AM_MEMORY_MB: i64 = 128;

/// The application's name, Hadoop's job name for pi.
const APPLICATION_NAME: &str = "QuasiMonteCarlo";

/// How a pi application ended.
#[derive(Debug, Clone, PartialEq)]
pub struct PiOutcome {
    /// The application.
    pub application_id: ApplicationId,
    /// Its final state: FINISHED, FAILED or KILLED.
    pub final_state: pb::YarnApplicationStateProto,
    /// The final status its ApplicationMaster reported.
    pub final_status: pb::FinalApplicationStatusProto,
    /// The estimate of π, when every map succeeded.
    pub estimate: Option<f64>,
    /// Each map container's end.
    pub containers: Vec<ContainerResult>,
    /// The application's diagnostics as the RM reported them.
    pub diagnostics: String,
}

impl PiOutcome {
    /// Whether the application FINISHED with final status SUCCEEDED and an estimate.
    pub fn succeeded(&self) -> bool {
        self.final_state == pb::YarnApplicationStateProto::Finished
            && self.final_status == pb::FinalApplicationStatusProto::AppSucceeded
            && self.estimate.is_some()
    }
}

/// Runs the pi example and waits for it, blocking on a runtime of its own.
///
/// Prints Hadoop's `Number of Maps` and `Samples per Map` lines, takes a new application id,
/// creates the result directory `<temp dir>/yarn-ha-pi-<application id>` (which every
/// NodeManager must reach: true on one machine, as in the minicluster), submits an
/// ApplicationMaster running `<exe> --conf-dir <conf_dir> pi-am <PiAmOptions::to_am_args()>`,
/// prints `Submitted application <id>`, waits up to [`PI_CLIENT_TIMEOUT`] (then kills the
/// application), prints the final state and diagnostics (ending in `Estimated value of Pi is
/// <v>` on success) and removes the result directory.
///
/// # Errors
///
/// Those of [`PiOptions::validate`]; [`Error::PathUnresolvable`], [`Error::NonUtf8Path`];
/// [`Error::PiResultFile`] when the result directory cannot be created; those of
/// [`YarnClient::from_conf`] and its calls,
/// [`ApplicationWaitTimedOut`](yarn_client::Error::ApplicationWaitTimedOut);
/// [`WriteOutput`](yarn_client::Error::WriteOutput); [`Runtime`](yarn_client::Error::Runtime).
/// A failed application is an `Ok` outcome.
pub fn run_pi(
    conf_dir: &Path,
    conf: &Configuration,
    exe: &Path,
    options: &PiOptions,
    out: &mut impl Write,
) -> Result<PiOutcome, Error> {
    options.validate()?;
    let (conf_dir, exe) = absolute_paths(conf_dir, exe)?;
    let submission = AmSubmission {
        exe,
        conf_dir,
        name: APPLICATION_NAME.to_owned(),
        queue: "default".to_owned(),
        priority: 0,
        memory_mb: PI_AM_MEMORY_MB,
        vcores: 1,
        node_label_expression: String::new(),
    };
    emit(
        out,
        &format!(
            "Number of Maps  = {}\nSamples per Map = {}\n",
            options.maps, options.samples
        ),
    )?;
    let client = YarnClient::from_conf(conf)?;
    current_thread_runtime()?.block_on(async {
        let application_id = client.get_new_application().await?.application_id;
        let result_dir = ResultDir::create(application_id)?;
        let am_options = PiAmOptions {
            pi: *options,
            result_dir: result_dir.path.clone(),
        };
        let report = submission
            .submit_and_wait(
                &client,
                application_id,
                PI_AM_SUBCOMMAND,
                &am_options.to_am_args()?,
                PI_CLIENT_TIMEOUT,
                out,
            )
            .await?;
        Ok(PiOutcome {
            application_id,
            final_state: report.yarn_application_state(),
            final_status: report.final_application_status(),
            estimate: parse_estimate(&report.diagnostics),
            containers: parse_diagnostics(&report.diagnostics),
            diagnostics: report.diagnostics,
        })
    })
}

/// The maps' result directory of one application, removed with everything in it when dropped,
/// however the client ends.
#[derive(Debug)]
struct ResultDir {
    path: PathBuf,
}

impl ResultDir {
    /// Creates `<temp dir>/yarn-ha-pi-<id>`; application ids are never reused, so an existing
    /// directory is another cluster's and an error.
    fn create(id: ApplicationId) -> Result<Self, Error> {
        let path = std::env::temp_dir().join(format!("yarn-ha-pi-{id}"));
        std::fs::create_dir(&path).map_err(|source| Error::PiResultFile {
            operation: "creating the directory",
            path: path.clone(),
            source,
        })?;
        Ok(Self { path })
    }
}

impl Drop for ResultDir {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_dir_all(&self.path) {
            tracing::warn!(
                "could not remove the pi result directory {}: {err}",
                self.path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_directory_is_the_applications_and_goes_away_with_its_contents() {
        let id = ApplicationId::new(1_234_567, std::process::id() as i32);
        let dir = ResultDir::create(id).unwrap();
        let path = dir.path.clone();
        assert_eq!(
            path,
            std::env::temp_dir().join(format!("yarn-ha-pi-application_1234567_{:04}", id.id))
        );
        std::fs::write(path.join("map-0"), "inside=1 total=1\n").unwrap();
        let err = ResultDir::create(id).unwrap_err();
        assert!(matches!(err, Error::PiResultFile { .. }), "{err}");
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn only_a_finished_success_with_an_estimate_succeeds() {
        let outcome = PiOutcome {
            application_id: ApplicationId::new(1, 1),
            final_state: pb::YarnApplicationStateProto::Finished,
            final_status: pb::FinalApplicationStatusProto::AppSucceeded,
            estimate: Some(3.0),
            containers: Vec::new(),
            diagnostics: String::new(),
        };
        assert!(outcome.succeeded());
        assert!(
            !PiOutcome {
                estimate: None,
                ..outcome.clone()
            }
            .succeeded()
        );
        assert!(
            !PiOutcome {
                final_status: pb::FinalApplicationStatusProto::AppFailed,
                ..outcome
            }
            .succeeded()
        );
    }
}

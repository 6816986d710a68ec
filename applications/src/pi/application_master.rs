//! The pi example's ApplicationMaster: runs one map container per map, then sums their counts
//! into the estimate.

use std::path::Path;

use yarn_conf::Configuration;
use yarn_proto::pb;

use super::halton::format_estimate;
use super::map_result::read_map_results;
use super::{PiAmOptions, PiMapTask};
use crate::Error;
use crate::dshell::{
    ANY_NODE, CONF_DIR_ENV, ContainerResult, RegisteredAm, absolute_paths, current_thread_runtime,
    final_status, format_diagnostics, shell_command_line,
};

/// The binary's subcommand that runs one map; it takes the words of
/// [`PiMapTask::to_args`](super::PiMapTask::to_args).
pub const PI_MAP_SUBCOMMAND: &str = "pi-map";

/// Memory of each map container in MB: sampling needs a few MB, the rest is the binary's own.
pub const MAP_MEMORY_MB: i64 = 128;

/// Virtual cores of each map container.
pub const MAP_VCORES: i32 = 1;

/// How the estimate starts in the final diagnostics, as Hadoop prints it.
pub const ESTIMATE_PREFIX: &str = "Estimated value of Pi is ";

/// Runs the pi example's ApplicationMaster inside the container the RM launched it in,
/// blocking on a runtime of its own.
///
/// Registers as the distributed shell's ApplicationMaster does, asks for `maps` containers of
/// [`MAP_MEMORY_MB`] and [`MAP_VCORES`] anywhere (the
/// [`opportunistic share`](super::PiOptions::opportunistic_maps) as OPPORTUNISTIC, not
/// enforced, the rest GUARANTEED), runs map `i` in one of them as
/// `<exe> --conf-dir <conf_dir> pi-map <i> <samples> <result_dir>`, and once every map has
/// ended unregisters: SUCCEEDED when all exited 0 and their counts could be read from the
/// result directory, with `Estimated value of Pi is <v>` as the last line of the diagnostics
/// after one line per map container; FAILED otherwise. `conf_dir` and `exe` are this
/// process's own (the lead passes `--conf-dir` and the running binary).
///
/// The result directory must be on a file system every NodeManager shares (see
/// [`write_map_result`](super::write_map_result)).
///
/// # Errors
///
/// Those of [`PiOptions::validate`](super::PiOptions::validate);
/// [`Error::PathUnresolvable`] and [`Error::NonUtf8Path`]; those of the registration and the
/// AMRM calls; [`Error::AmRunLimitExceeded`] and the RM's refusal of an allocate,
/// [`CallFailed`](yarn_client::Error::CallFailed) (both after unregistering as FAILED);
/// [`Error::AmShutdownRequested`]; [`Runtime`](yarn_client::Error::Runtime).
pub fn run_pi_application_master(
    conf_dir: &Path,
    conf: &Configuration,
    exe: &Path,
    options: &PiAmOptions,
) -> Result<(), Error> {
    options.pi.validate()?;
    let (conf_dir, exe) = absolute_paths(conf_dir, exe)?;
    let contexts = (0..options.pi.maps)
        .map(|index| {
            let task = PiMapTask {
                index,
                samples: options.pi.samples,
                result_dir: options.result_dir.clone(),
            };
            map_launch_context(&exe, &conf_dir, &task)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    current_thread_runtime()?.block_on(async {
        let mut registered = RegisteredAm::register(conf).await?;
        let end = registered
            .run_tasks(map_asks(options), |task| {
                // The runner numbers tasks below the maps asked for.
                contexts.get(task).cloned().unwrap_or_default()
            })
            .await?;
        registered
            .finish(end, |results, wanted| report(options, results, wanted))
            .await
    })
}

/// What a map container runs: the binary's `pi-map` with the task's words, its output in
/// the container's log directory.
///
/// # Errors
///
/// Those of [`PiMapTask::to_args`].
fn map_launch_context(
    exe: &str,
    conf_dir: &str,
    task: &PiMapTask,
) -> Result<pb::ContainerLaunchContextProto, Error> {
    let mut words = vec![
        exe.to_owned(),
        "--conf-dir".to_owned(),
        conf_dir.to_owned(),
        PI_MAP_SUBCOMMAND.to_owned(),
    ];
    words.extend(task.to_args()?);
    Ok(pb::ContainerLaunchContextProto {
        environment: [(CONF_DIR_ENV.to_owned(), conf_dir.to_owned())].into(),
        commands: vec![format!(
            "{} 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr",
            shell_command_line(&words)
        )],
        ..Default::default()
    })
}

/// The container priority of guaranteed maps, as Hadoop MapReduce's `PRIORITY_MAP`.
const MAP_PRIORITY: i32 = 20;
/// The container priority of opportunistic maps, as Hadoop MapReduce's
/// `PRIORITY_OPPORTUNISTIC_MAP`: schedulers key asks by priority, not execution type, so the two
/// kinds need their own.
const OPPORTUNISTIC_MAP_PRIORITY: i32 = 19;

/// The asks for the maps: the opportunistic share and the rest, leaving out an empty one.
fn map_asks(options: &PiAmOptions) -> Vec<pb::ResourceRequestProto> {
    let opportunistic = options.pi.opportunistic_maps();
    let guaranteed = options.pi.maps - opportunistic;
    [
        (pb::ExecutionTypeProto::Guaranteed, MAP_PRIORITY, guaranteed),
        (
            pb::ExecutionTypeProto::Opportunistic,
            OPPORTUNISTIC_MAP_PRIORITY,
            opportunistic,
        ),
    ]
    .into_iter()
    .filter(|(_, _, count)| *count > 0)
    .map(
        |(execution_type, priority, count)| pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority }),
            resource_name: ANY_NODE.to_owned(),
            capability: Some(pb::ResourceProto {
                memory: MAP_MEMORY_MB,
                virtual_cores: MAP_VCORES,
                ..Default::default()
            }),
            num_containers: i32::try_from(count).unwrap_or(i32::MAX),
            execution_type_request: Some(pb::ExecutionTypeRequestProto {
                execution_type: execution_type as i32,
                enforce_execution_type: false,
            }),
            ..Default::default()
        },
    )
    .collect()
}

/// The final status and diagnostics once every map ended.
fn report(
    options: &PiAmOptions,
    results: &[ContainerResult],
    wanted: usize,
) -> (pb::FinalApplicationStatusProto, String) {
    let status = final_status(results, wanted);
    let mut diagnostics = format_diagnostics(results, wanted);
    if status != pb::FinalApplicationStatusProto::AppSucceeded {
        return (status, diagnostics);
    }
    match read_map_results(&options.result_dir, options.pi.maps) {
        Ok((inside, total)) => {
            diagnostics.push_str(&format!(
                "\n{ESTIMATE_PREFIX}{}",
                format_estimate(inside, total)
            ));
            (status, diagnostics)
        }
        Err(err) => {
            diagnostics.push_str(&format!("\n{err}"));
            (pb::FinalApplicationStatusProto::AppFailed, diagnostics)
        }
    }
}

/// The estimate in an application's diagnostics, if the ApplicationMaster reported one.
pub fn parse_estimate(diagnostics: &str) -> Option<f64> {
    diagnostics
        .lines()
        .find_map(|line| line.strip_prefix(ESTIMATE_PREFIX))
        .and_then(|value| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::pi::{PiOptions, write_map_result};

    fn options(maps: u32, opportunistic_percent: u8, result_dir: PathBuf) -> PiAmOptions {
        PiAmOptions {
            pi: PiOptions {
                maps,
                samples: 10,
                opportunistic_percent,
            },
            result_dir,
        }
    }

    fn result(sequence: u32, exit_status: i32) -> ContainerResult {
        ContainerResult {
            container_id: format!("container_1700000000000_0001_01_{sequence:06}"),
            node: "host1:8041".to_owned(),
            execution_type: pb::ExecutionTypeProto::Guaranteed,
            exit_status,
            diagnostics: String::new(),
        }
    }

    #[test]
    fn the_opportunistic_share_gets_its_own_unenforced_ask() {
        let asks = map_asks(&options(10, 40, PathBuf::from("/r")));
        let summary: Vec<(i32, i32, bool)> = asks
            .iter()
            .map(|ask| {
                let wanted = ask.execution_type_request.unwrap();
                (
                    wanted.execution_type,
                    ask.num_containers,
                    wanted.enforce_execution_type,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (pb::ExecutionTypeProto::Guaranteed as i32, 6, false),
                (pb::ExecutionTypeProto::Opportunistic as i32, 4, false)
            ]
        );
        let all_guaranteed = map_asks(&options(3, 0, PathBuf::from("/r")));
        assert_eq!(all_guaranteed.len(), 1, "no empty opportunistic ask");
        assert_eq!(all_guaranteed[0].num_containers, 3);
    }

    #[test]
    fn successful_maps_report_the_estimate_and_a_failed_one_fails_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let options = options(2, 0, dir.path().to_owned());
        for index in 0..2 {
            PiMapTask {
                index,
                samples: 1000,
                result_dir: dir.path().to_owned(),
            }
            .run(&mut Vec::new())
            .unwrap();
        }
        let (status, diagnostics) = report(&options, &[result(2, 0), result(3, 0)], 2);
        assert_eq!(status, pb::FinalApplicationStatusProto::AppSucceeded);
        let estimate = parse_estimate(&diagnostics).unwrap();
        assert!(
            (estimate - std::f64::consts::PI).abs() < 0.05,
            "{diagnostics}"
        );
        let (status, diagnostics) = report(&options, &[result(2, 0), result(3, 1)], 2);
        assert_eq!(status, pb::FinalApplicationStatusProto::AppFailed);
        assert_eq!(parse_estimate(&diagnostics), None);
    }

    #[test]
    fn a_map_that_wrote_no_count_fails_the_run_naming_its_file() {
        let dir = tempfile::tempdir().unwrap();
        write_map_result(dir.path(), 0, 1, 2).unwrap();
        let options = options(2, 0, dir.path().to_owned());
        let (status, diagnostics) = report(&options, &[result(2, 0), result(3, 0)], 2);
        assert_eq!(status, pb::FinalApplicationStatusProto::AppFailed);
        assert!(diagnostics.contains("map-1"), "{diagnostics}");
    }

    #[test]
    fn a_map_container_runs_the_binarys_pi_map_with_the_conf_dir() {
        let task = PiMapTask {
            index: 4,
            samples: 100,
            result_dir: PathBuf::from("/shared/pi results"),
        };
        let context = map_launch_context("/bin/yarn-ha", "/etc/conf", &task).unwrap();
        assert_eq!(
            context.commands,
            [
                "'/bin/yarn-ha' '--conf-dir' '/etc/conf' 'pi-map' '4' '100' '/shared/pi results' \
              1><LOG_DIR>/stdout 2><LOG_DIR>/stderr"
            ]
        );
        assert_eq!(context.environment[CONF_DIR_ENV], "/etc/conf");
    }
}

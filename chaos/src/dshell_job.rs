//! [`DshellJob`]: one distributed-shell application of the workload, as a submission context.

use std::collections::BTreeMap;
use std::path::Path;

use yarn_applications::dshell::{CONF_DIR_ENV, DSHELL_AM_SUBCOMMAND, DshellOptions, launch_word};
use yarn_minicluster::SplitMix64;
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

/// Memory of each task container, in MB.
const TASK_MEMORY_MB: i64 = 256;

/// Memory of the ApplicationMaster's container, in MB.
const AM_MEMORY_MB: i64 = 128;

/// Tasks of a wide job: more than the cluster runs at once.
const WIDE_TASKS: u32 = 10;

/// Memory of each task container of a wide job, in MB: ten of them ask for 5 GB, more than two
/// NodeManagers of 2 GB hold, so they start in waves.
const WIDE_TASK_MEMORY_MB: i64 = 512;

/// A distributed-shell job: some short tasks of one execution type.
///
/// Tasks only `sleep`, so a task fails only because of a fault; the ApplicationMaster is the
/// `yarn-ha` binary's `dshell-am`, run with the harness's client configuration (whose RM
/// addresses are the proxies' fronts, or the real ones under the kernel's filter in the netns
/// mode, so its calls cross the faults too).
#[derive(Debug, Clone, PartialEq)]
pub struct DshellJob {
    /// The distributed shell's options (command, container count and type, sizes).
    pub options: DshellOptions,
}

impl DshellJob {
    /// A job drawn from `rng`: 2 or 3 tasks of `sleep 1` to `sleep 3`, GUARANTEED or
    /// OPPORTUNISTIC with equal odds; one GUARANTEED job in three is wide instead, with
    /// [`WIDE_TASKS`] tasks of [`WIDE_TASK_MEMORY_MB`], which the cluster cannot run at once.
    ///
    /// Wide jobs keep asking for containers for seconds, so a failover usually finds one
    /// waiting and its next containers come from the new leader: the path where a leader that
    /// lost count of the ids issued before it would issue one again.
    pub fn draw(rng: &mut SplitMix64, name: &str) -> Self {
        let seconds = rng.between(1, 3);
        let mut options = DshellOptions::new(format!("sleep {seconds}"));
        options.num_containers = u32::try_from(rng.between(2, 3)).unwrap_or(2);
        options.container_type = if rng.next_u64() % 2 == 0 {
            pb::ExecutionTypeProto::Guaranteed
        } else {
            pb::ExecutionTypeProto::Opportunistic
        };
        options.container_memory_mb = TASK_MEMORY_MB;
        let wide = rng.next_u64() % 3 == 0;
        if wide && options.container_type == pb::ExecutionTypeProto::Guaranteed {
            options.num_containers = WIDE_TASKS;
            options.container_memory_mb = WIDE_TASK_MEMORY_MB;
        }
        options.master_memory_mb = AM_MEMORY_MB;
        options.appname = name.to_owned();
        Self { options }
    }

    /// The submission of this job as application `id`, whose ApplicationMaster runs
    /// `<exe> --conf-dir <conf_dir> dshell-am <options>` with its output in the container's log
    /// directory, as the `dshell` client submits it. `exe` and `conf_dir` must be absolute.
    pub fn context(
        &self,
        id: ApplicationId,
        exe: &Path,
        conf_dir: &Path,
    ) -> pb::ApplicationSubmissionContextProto {
        let mut words = vec![
            exe.to_string_lossy().into_owned(),
            "--conf-dir".to_owned(),
            conf_dir.to_string_lossy().into_owned(),
            DSHELL_AM_SUBCOMMAND.to_owned(),
        ];
        words.extend(self.options.to_am_args());
        let command = format!(
            "{} 1><LOG_DIR>/AppMaster.stdout 2><LOG_DIR>/AppMaster.stderr",
            words
                .iter()
                .map(|word| launch_word(word))
                .collect::<Vec<_>>()
                .join(" ")
        );
        pb::ApplicationSubmissionContextProto {
            application_id: Some(id.into()),
            application_name: Some(self.options.appname.clone()),
            queue: Some(self.options.queue.clone()),
            priority: Some(pb::PriorityProto {
                priority: self.options.priority,
            }),
            am_container_spec: Some(pb::ContainerLaunchContextProto {
                environment: BTreeMap::from([(
                    CONF_DIR_ENV.to_owned(),
                    conf_dir.to_string_lossy().into_owned(),
                )]),
                commands: vec![command],
                ..Default::default()
            }),
            resource: Some(pb::ResourceProto {
                memory: self.options.master_memory_mb,
                virtual_cores: self.options.master_vcores,
                ..Default::default()
            }),
            application_type: Some("YARN".to_owned()),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NODE_MEMORY_MB;

    #[test]
    fn jobs_are_small_sleeps_and_the_same_seed_draws_the_same_job() {
        let job = DshellJob::draw(&mut SplitMix64::new(3), "chaos-1");
        assert_eq!(job, DshellJob::draw(&mut SplitMix64::new(3), "chaos-1"));
        assert!(job.options.shell_command.starts_with("sleep "));
        assert_eq!(job.options.validate().map_err(|e| e.to_string()), Ok(()));
        let mut rng = SplitMix64::new(11);
        let jobs: Vec<DshellJob> = (0..60)
            .map(|n| DshellJob::draw(&mut rng, &format!("chaos-{n}")))
            .collect();
        let wide = |job: &&DshellJob| job.options.num_containers == WIDE_TASKS;
        for job in jobs.iter().filter(wide) {
            assert_eq!(
                job.options.container_type,
                pb::ExecutionTypeProto::Guaranteed
            );
            // More than two NodeManagers hold at once: the tasks must start in waves.
            let asked = i64::from(WIDE_TASKS) * job.options.container_memory_mb;
            assert!(asked > 2 * i64::try_from(NODE_MEMORY_MB).unwrap());
        }
        assert!(jobs.iter().any(|job| wide(&job)));
        assert!(
            jobs.iter()
                .filter(|job| !wide(job))
                .all(|job| (2..=3).contains(&job.options.num_containers))
        );
    }

    #[test]
    fn the_am_command_runs_the_binary_with_the_options_through_the_shell() {
        let job = DshellJob::draw(&mut SplitMix64::new(5), "it's");
        let id: ApplicationId = "application_1700000000000_0007".parse().unwrap();
        let context = job.context(id, Path::new("/opt/yarn-ha"), Path::new("/c/client conf"));
        let spec = context.am_container_spec.unwrap();
        let command = &spec.commands[0];
        assert!(
            command.starts_with("'/opt/yarn-ha' '--conf-dir' '/c/client conf' 'dshell-am'"),
            "{command}"
        );
        assert!(
            command.ends_with("2><LOG_DIR>/AppMaster.stderr"),
            "{command}"
        );
        assert_eq!(spec.environment[CONF_DIR_ENV], "/c/client conf");
        assert_eq!(context.resource.unwrap().memory, AM_MEMORY_MB);
    }
}

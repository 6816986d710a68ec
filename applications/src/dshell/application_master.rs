//! The distributed shell's ApplicationMaster: runs the shell command in `num_containers`
//! containers and reports how each ended.

use yarn_client::RmClientConfig;
use yarn_conf::Configuration;
use yarn_proto::pb;

use super::DshellOptions;
use super::am_submission::current_thread_runtime;
use super::container_result::{final_status, format_diagnostics};
use super::task_runner::RegisteredAm;
use crate::Error;

/// Where the ask places containers: on any node.
pub(crate) const ANY_NODE: &str = "*";

/// Runs the distributed shell's ApplicationMaster inside the container the RM launched it in,
/// blocking on a runtime of its own.
///
/// Reads the AMRMToken named by `HADOOP_TOKEN_FILE_LOCATION`, registers (host `NM_HOST`), asks
/// for `num_containers` containers of the options' size and execution type anywhere, starts
/// [`DshellOptions::container_command`] with `shell_env` in each, and once every container has
/// ended unregisters with SUCCEEDED when all exited 0, FAILED otherwise, and diagnostics
/// listing each container (see [`format_diagnostics`]), and with
/// `--promote_opportunistic_after_start` how many containers were promoted. Failed containers
/// are not run again; the command of a container aborted (lost with its node) is, in a new
/// container, as in Hadoop's distributed shell. When the RM refuses an allocate (an ask above
/// the maximum allocation), it unregisters with FAILED and the refusal, which carries the RM's
/// message, as the first line of the diagnostics.
/// `conf` gives the RM addresses and the TLS identity (the client's conf dir, named in
/// `YARN_CONF_DIR`).
///
/// # Errors
///
/// Those of [`DshellOptions::validate`],
/// [`RmClientConfig::for_application_master`](yarn_client::RmClientConfig::for_application_master),
/// [`read_amrm_token_from_env`](yarn_client::read_amrm_token_from_env) and the AMRM calls;
/// [`Error::AmRunLimitExceeded`] (after unregistering as FAILED) when the containers did not
/// all end within [`AM_RUN_LIMIT`](super::AM_RUN_LIMIT); the RM's refusal,
/// [`CallFailed`](yarn_client::Error::CallFailed), after unregistering as FAILED;
/// [`Error::AmShutdownRequested`] when the RM told the ApplicationMaster to stop;
/// [`Runtime`](yarn_client::Error::Runtime).
pub fn run_application_master(conf: &Configuration, options: &DshellOptions) -> Result<(), Error> {
    options.validate()?;
    current_thread_runtime()?.block_on(async {
        let registered = RegisteredAm::register(conf).await?;
        run_registered(registered, options).await
    })
}

/// The distributed shell's ApplicationMaster on the caller's runtime, as
/// [`run_application_master`] runs it, holding `amrm_token` and reaching the RM group and the
/// NodeManagers as `config` says, registered from `nm_host`: what the deterministic simulation
/// runs inside a simulated container.
///
/// # Errors
///
/// As [`run_application_master`], except for reading the configuration and the token file.
pub async fn serve_application_master(
    config: &RmClientConfig,
    amrm_token: pb::TokenProto,
    nm_host: &str,
    options: &DshellOptions,
) -> Result<(), Error> {
    options.validate()?;
    let registered = RegisteredAm::register_with(config, amrm_token, nm_host).await?;
    run_registered(registered, options).await
}

async fn run_registered(registered: RegisteredAm, options: &DshellOptions) -> Result<(), Error> {
    let mut registered =
        registered.promote_opportunistic_after_start(options.promote_opportunistic_after_start);
    let context = container_launch_context(options);
    let end = registered
        .run_tasks(vec![container_ask(options)], |_| context.clone())
        .await?;
    let promoted = registered.promoted();
    let promote = options.promote_opportunistic_after_start;
    registered
        .finish(end, |results, wanted| {
            let mut diagnostics = format_diagnostics(results, wanted);
            if promote {
                diagnostics.push_str(&format!(
                    "\n{promoted} OPPORTUNISTIC containers promoted to GUARANTEED"
                ));
            }
            (final_status(results, wanted), diagnostics)
        })
        .await
}

/// The one ask for every container of the run.
fn container_ask(options: &DshellOptions) -> pb::ResourceRequestProto {
    pb::ResourceRequestProto {
        priority: Some(pb::PriorityProto { priority: 0 }),
        resource_name: ANY_NODE.to_owned(),
        capability: Some(pb::ResourceProto {
            memory: options.container_memory_mb,
            virtual_cores: options.container_vcores,
            ..Default::default()
        }),
        // Validated as at least 1; the AMRM protocol counts in i32.
        num_containers: i32::try_from(options.num_containers).unwrap_or(i32::MAX),
        execution_type_request: Some(pb::ExecutionTypeRequestProto {
            execution_type: options.container_type as i32,
            enforce_execution_type: options.enforce_execution_type,
        }),
        node_label_expression: options.node_label_expression.clone(),
        ..Default::default()
    }
}

/// What each container runs: the command with its output in the container's log directory,
/// with the `shell_env` variables.
fn container_launch_context(options: &DshellOptions) -> pb::ContainerLaunchContextProto {
    pb::ContainerLaunchContextProto {
        environment: options.shell_env.iter().cloned().collect(),
        commands: vec![options.container_command()],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ask_carries_the_count_size_execution_type_and_label() {
        let mut options = DshellOptions::new("date");
        options.node_label_expression = "GPU".to_owned();
        options.num_containers = 3;
        options.container_memory_mb = 64;
        options.container_vcores = 2;
        options.container_type = pb::ExecutionTypeProto::Opportunistic;
        options.enforce_execution_type = true;
        let ask = container_ask(&options);
        assert_eq!(ask.num_containers, 3);
        assert_eq!(ask.resource_name, "*");
        assert_eq!(ask.node_label_expression, "GPU");
        let capability = ask.capability.unwrap();
        assert_eq!((capability.memory, capability.virtual_cores), (64, 2));
        assert_eq!(
            ask.execution_type_request,
            Some(pb::ExecutionTypeRequestProto {
                execution_type: pb::ExecutionTypeProto::Opportunistic as i32,
                enforce_execution_type: true,
            })
        );
    }

    #[test]
    fn each_container_gets_the_command_and_the_shell_env() {
        let mut options = DshellOptions::new("echo $GREETING");
        options.shell_env = vec![("GREETING".to_owned(), "hi".to_owned())];
        let context = container_launch_context(&options);
        assert_eq!(context.commands, [options.container_command()]);
        assert_eq!(context.environment["GREETING"], "hi");
        assert!(context.tokens.is_empty(), "tasks need no AMRMToken");
    }
}

//! Hadoop's distributed shell: runs a shell command in containers across the cluster.
//!
//! Two halves, both in the `yarn-ha` binary:
//!
//! - the client, [`run_client`] (`yarn-ha dshell ...`), submits an application whose
//!   ApplicationMaster is the binary again, run with the subcommand [`DSHELL_AM_SUBCOMMAND`]
//!   and the options as flags ([`DshellOptions::to_am_args`]), and waits for it;
//! - the ApplicationMaster, [`run_application_master`], runs in the AM container: it registers
//!   with the RM group, asks for the containers, starts the command in each on its NodeManager
//!   and reports each container's end in its final diagnostics, which the client prints.
//!
//! ```text
//!  client                      RM group                    NodeManagers
//!  GetNewApplication ────────▶
//!  SubmitApplication ────────▶ launches the AM ──────────▶ yarn-ha dshell-am --shell_command=...
//!                                                            │ register, allocate (every 100 ms)
//!                              allocates containers ◀───────┤
//!                                                            │ StartContainers (NM token) ──▶ sh
//!                              completions ─────────────────▶│
//!                              ◀─────────────────────────────┘ finish: SUCCEEDED | FAILED,
//!  GetApplicationReport ─────▶   "<container> on <node> <TYPE> exit <status>" per container
//! ```
//!
//! After an RM failover the AMRM client registers again by itself and deduplicates containers;
//! a container beyond the ones asked for (an allocation committed but not delivered before the
//! failover, plus the one the re-sent ask got) is released unused. `AM_SHUTDOWN` (the
//! application was killed) stops the ApplicationMaster at once.
//!
//! The pieces the [pi example](crate::pi) shares live here too: the task bookkeeping and loop,
//! the AM submission and the quoting of command lines.

mod am_submission;
mod application_master;
mod client;
mod container_result;
mod option_words;
mod options;
mod task_ledger;
mod task_runner;

pub use am_submission::CONF_DIR_ENV;
pub use application_master::{run_application_master, serve_application_master};
pub use client::{DSHELL_AM_SUBCOMMAND, DshellOutcome, run_client};
pub use container_result::{
    ContainerResult, EXIT_STATUS_INVALID, final_status, format_diagnostics, parse_diagnostics,
};
pub use option_words::launch_word;
pub use options::{DshellOptions, parse_execution_type, parse_shell_env};
pub use task_runner::{AM_RUN_LIMIT, HEARTBEAT_INTERVAL};

pub(crate) use am_submission::{AmSubmission, absolute_paths, current_thread_runtime, emit};
pub(crate) use application_master::ANY_NODE;
pub(crate) use option_words::{
    Item, OptionWords, invalid, parse_at_least, path_text, shell_command_line,
};
pub(crate) use task_runner::RegisteredAm;

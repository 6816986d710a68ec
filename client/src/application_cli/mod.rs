//! The user commands `yarn-ha application`, `node`, `applicationattempt` and `container`, with
//! Hadoop's options and output.
//!
//! ```text
//! application -list [-appStates S,..|ALL] [-appTypes T,..]   GetApplications
//! application -status ID                                      GetApplicationReport
//! application -kill ID        GetApplicationReport, then ForceKillApplication until completed
//! application -movetoqueue ID -queue Q                        MoveApplicationAcrossQueues
//! node -list [-states S,..] [-all]                            GetClusterNodes(states)
//! node -status NODE_ID                                        GetClusterNodes(every state)
//! applicationattempt -list ID                                 GetApplicationAttempts
//! container -list ATTEMPT_ID                                  GetContainers
//! ```
//!
//! [`UserCommand`] holds a parsed command line and runs it with a [`YarnClient`](crate::YarnClient).
//! Everything printed comes from the pure functions of [`application`], [`node`],
//! [`application_attempt`] and [`container`]; [`state_args`] reads the state filters and holds
//! Hadoop's defaults. Listings are Hadoop's: a count line, then tab-separated rows with cells
//! right-aligned to Hadoop's column widths.

pub mod application;
pub mod application_attempt;
pub mod container;
pub mod node;
pub mod state_args;
mod table;
pub(crate) mod text;
mod user_command;

pub use state_args::{ApplicationStateArg, NodeStateArg};
pub use text::{
    NOT_AVAILABLE, application_state_name, attempt_state_name, container_state_name,
    final_status_name, format_progress, format_time, node_state_name,
};
pub use user_command::{UserCommand, run_blocking};

//! The pi example: estimates π with Hadoop's quasi-Monte Carlo method, one map per container.
//!
//! - the client, [`run_pi`] (`yarn-ha pi <maps> <samples>`), creates a result directory and
//!   submits an ApplicationMaster that is the binary again, run with [`PI_AM_SUBCOMMAND`] and
//!   [`PiAmOptions::to_am_args`];
//! - the ApplicationMaster, [`run_pi_application_master`], runs each map in a container as the
//!   binary's [`PI_MAP_SUBCOMMAND`] with [`PiMapTask::to_args`], then sums the maps' counts;
//! - a map, [`PiMapTask::run`], counts its window of the Halton sequence ([`run_pi_map`]) and
//!   writes the count into the result directory ([`write_map_result`]).
//!
//! ```text
//!  client ── submit ──▶ RM ──▶ pi-am ──▶ containers: pi-map 0 .. pi-map <maps-1>
//!     │                          │                      │ writes <result_dir>/map-<i>
//!     │                          └── sums map-* ◀───────┘ (shared file system)
//!     ◀── report: "Estimated value of Pi is 3.14120000000000000000"
//! ```
//!
//! The result directory must be on a file system every NodeManager shares, as Hadoop's maps
//! write to HDFS; on one machine (the minicluster) the client's temporary directory is.
//! The allocation, failover and shutdown behaviour is the distributed shell's (see
//! [`dshell`](crate::dshell)).

mod application_master;
mod client;
mod halton;
mod map_result;
mod options;

pub use application_master::{
    ESTIMATE_PREFIX, MAP_MEMORY_MB, MAP_VCORES, PI_MAP_SUBCOMMAND, parse_estimate,
    run_pi_application_master,
};
pub use client::{PI_AM_MEMORY_MB, PI_AM_SUBCOMMAND, PI_CLIENT_TIMEOUT, PiOutcome, run_pi};
pub use halton::{format_estimate, halton_point, run_pi_map};
pub use map_result::{format_map_result, map_result_path, read_map_results, write_map_result};
pub use options::{PiAmOptions, PiMapTask, PiOptions};

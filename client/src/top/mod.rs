//! `yarn-ha top`: Hadoop's `yarn top`, a view of the cluster refreshed every few seconds.
//!
//! ```text
//!  every -delay seconds:  TopSnapshot::fetch(client, TopFilter)
//!                           GetClusterMetrics, GetQueueInfo (root's children or -queues),
//!                           GetApplications (ACCEPTED, RUNNING; -queues, -users, -types)
//!  on each key:           TopView::handle_key ──▶ Quit | Redraw | Ignored
//!  to draw:               TopFrame::render(view, filter, snapshot, refresh error, FrameSize)
//!                           header_lines ─ message ─ column headers ─ ApplicationRow, sorted
//!  to stop on its own:    RefreshLimit (--iterations, or the end of the input)
//! ```
//!
//! Everything here but [`TopSnapshot::fetch`] is pure: the terminal (raw mode, keys, signals,
//! drawing) belongs to the binary's `top` command, which feeds keys in and writes frames out.
//! The client follows the active ResourceManager, so `top` works against any replica and keeps
//! working across a failover.

mod application_row;
mod refresh_limit;
mod top_column;
mod top_filter;
mod top_frame;
mod top_header;
mod top_snapshot;
mod top_view;

pub use application_row::ApplicationRow;
pub use refresh_limit::RefreshLimit;
pub use top_column::{Alignment, TopColumn};
pub use top_filter::TopFilter;
pub use top_frame::{FrameSize, TopFrame};
pub use top_snapshot::TopSnapshot;
pub use top_view::{INTERRUPT_KEY, KeyOutcome, Screen, TopView};

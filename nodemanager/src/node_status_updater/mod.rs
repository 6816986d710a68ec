//! The NodeManager's registration and heartbeats with the ResourceManager leader.

mod connection;
mod heartbeat_state;
mod node_status_source;
mod updater;

pub use connection::{Connection, NOT_CONNECTED};
pub use heartbeat_state::{HeartbeatState, NextStep};
pub use node_status_source::NodeStatusSource;
pub use updater::NodeStatusUpdater;

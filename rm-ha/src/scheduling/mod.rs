//! The leader's side of the CapacityScheduler: the replicated queue configuration, its
//! refresh, and schedulers rebuilt from the replicated state. The scheduler itself is the pure
//! `yarn_scheduler` crate.

mod queue_config_source;
mod queue_info_proto;
mod queue_refresh;
mod scheduler_rebuild;

pub use queue_config_source::{CAPACITY_SCHEDULER_XML, QueueConfigSource};
pub use queue_info_proto::queue_info_proto;
pub use queue_refresh::QueueRefresh;
pub use scheduler_rebuild::rebuild;

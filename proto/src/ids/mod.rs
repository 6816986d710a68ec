//! YARN's identifiers as domain types, with Hadoop's string forms: [`Display`](std::fmt::Display)
//! prints exactly what Hadoop prints and [`FromStr`](std::str::FromStr) reads it back, so ids
//! can be pasted between yarn-ha and Hadoop tooling, logs and the CLI.

mod application_attempt_id;
mod application_id;
mod container_id;
mod node_id;
mod reader;
mod reservation_id;

pub use application_attempt_id::ApplicationAttemptId;
pub use application_id::ApplicationId;
pub use container_id::ContainerId;
pub use node_id::NodeId;
pub use reservation_id::ReservationId;

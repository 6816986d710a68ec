//! The replicated state and the commands that change it.

mod command;
mod response;
mod state;

pub use command::{CommandV1, RmCommand};
pub use response::RmResponse;
pub use state::RmState;

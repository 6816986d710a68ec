//! The NodeManager's side of the heartbeat protocol, as a pure state machine.

use yarn_proto::pb::{self, NodeActionProto};

use super::Connection;

/// What the node must do after a response from the ResourceManager.
#[derive(Debug, Clone, PartialEq)]
pub enum NextStep {
    /// Heartbeat again after this many milliseconds.
    Heartbeat {
        /// The RM-dictated interval.
        after_ms: u64,
    },
    /// Register again, reporting every container (RESYNC, or a refused registration retried).
    Register,
    /// Stop the NodeManager.
    ShutDown {
        /// The RM's reason.
        diagnostics: String,
    },
}

/// The response-id sequence and connection state of one NodeManager.
///
/// Guarantees: the node echoes the id of the last response it received, so a heartbeat whose
/// response was lost is answered again unchanged by the RM; after RESYNC the node is
/// [`Connection::Disconnected`] (new starts refused, running containers untouched) until a
/// registration succeeds; SHUTDOWN is final.
#[derive(Debug, Clone)]
pub struct HeartbeatState {
    response_id: i32,
    connection: Connection,
    default_interval_ms: u64,
}

impl HeartbeatState {
    /// A node not yet registered, heartbeating every `default_interval_ms` until the RM says
    /// otherwise.
    pub fn new(default_interval_ms: u64) -> Self {
        Self {
            response_id: 0,
            connection: Connection::Disconnected,
            default_interval_ms,
        }
    }

    /// The id to echo in the next heartbeat.
    pub fn response_id(&self) -> i32 {
        self.response_id
    }

    /// The current connection.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Applies a registration response.
    pub fn registered(&mut self, response: &pb::RegisterNodeManagerResponseProto) -> NextStep {
        if response.node_action() == NodeActionProto::Shutdown {
            return self.shut_down(&response.diagnostics_message);
        }
        self.response_id = 0;
        self.connection = Connection::Connected {
            rm_epoch: response.rm_identifier,
        };
        NextStep::Heartbeat {
            after_ms: self.default_interval_ms,
        }
    }

    /// Applies a heartbeat response.
    pub fn heartbeat_answered(&mut self, response: &pb::NodeHeartbeatResponseProto) -> NextStep {
        match response.node_action() {
            NodeActionProto::Shutdown => self.shut_down(&response.diagnostics_message),
            NodeActionProto::Resync => {
                self.connection = Connection::Disconnected;
                NextStep::Register
            }
            NodeActionProto::Normal => {
                self.response_id = response.response_id;
                let after_ms = u64::try_from(response.next_heart_beat_interval)
                    .ok()
                    .filter(|ms| *ms > 0)
                    .unwrap_or(self.default_interval_ms);
                NextStep::Heartbeat { after_ms }
            }
        }
    }

    fn shut_down(&mut self, diagnostics: &str) -> NextStep {
        self.connection = Connection::ShutDown {
            diagnostics: diagnostics.to_owned(),
        };
        NextStep::ShutDown {
            diagnostics: diagnostics.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heartbeat_response(
        action: NodeActionProto,
        response_id: i32,
    ) -> pb::NodeHeartbeatResponseProto {
        pb::NodeHeartbeatResponseProto {
            response_id,
            node_action: action.into(),
            next_heart_beat_interval: 500,
            diagnostics_message: "because".to_owned(),
            ..Default::default()
        }
    }

    fn registration(epoch: i64) -> pb::RegisterNodeManagerResponseProto {
        pb::RegisterNodeManagerResponseProto {
            rm_identifier: epoch,
            ..Default::default()
        }
    }

    #[test]
    fn registration_connects_and_heartbeats_echo_the_last_response_id() {
        let mut state = HeartbeatState::new(1000);
        assert!(state.connection().admit_start().is_err());
        assert_eq!(
            state.registered(&registration(3)),
            NextStep::Heartbeat { after_ms: 1000 }
        );
        assert_eq!(state.connection().admit_start(), Ok(3));
        assert_eq!(state.response_id(), 0);
        let step = state.heartbeat_answered(&heartbeat_response(NodeActionProto::Normal, 1));
        assert_eq!(step, NextStep::Heartbeat { after_ms: 500 });
        assert_eq!(state.response_id(), 1);
    }

    #[test]
    fn resync_blocks_starts_until_registered_again_and_restarts_the_sequence() {
        let mut state = HeartbeatState::new(1000);
        state.registered(&registration(1));
        state.heartbeat_answered(&heartbeat_response(NodeActionProto::Normal, 5));
        let step = state.heartbeat_answered(&heartbeat_response(NodeActionProto::Resync, 0));
        assert_eq!(step, NextStep::Register);
        let refusal = state.connection().admit_start().unwrap_err();
        assert_eq!(refusal, super::super::NOT_CONNECTED);
        state.registered(&registration(2));
        assert_eq!(state.response_id(), 0);
        assert_eq!(state.connection().admit_start(), Ok(2));
    }

    #[test]
    fn shutdown_is_final_and_keeps_the_reason() {
        let mut state = HeartbeatState::new(1000);
        let refused = pb::RegisterNodeManagerResponseProto {
            node_action: NodeActionProto::Shutdown.into(),
            diagnostics_message: "decommissioned".to_owned(),
            ..Default::default()
        };
        assert_eq!(
            state.registered(&refused),
            NextStep::ShutDown {
                diagnostics: "decommissioned".to_owned()
            }
        );
        let refusal = state.connection().admit_start().unwrap_err();
        assert!(refusal.contains("decommissioned"), "{refusal}");
    }
}

//! Who may serve leader-only RPCs right now, and the refusal everyone else answers with.

use std::sync::Arc;

use tokio::sync::watch;
use yarn_conf::{HostPort, RmEndpoints, RmHaConfig};
use yarn_proto::LeaderHint;

use super::leadership::Leadership;
use crate::operations::{NotLeader, RmError};

/// This replica's serving role, published by the leadership monitor.
#[derive(Debug, Clone)]
pub enum Serving {
    /// This replica leads and has applied the first entry of the leadership's epoch: its state
    /// holds every entry committed before it became leader.
    Leader(Arc<Leadership>),
    /// This replica is not (yet) a serving leader.
    NotLeader {
        /// The rm-id of the leader it knows of, if any.
        leader: Option<String>,
    },
}

/// Two leader roles are equal when they are the same leadership.
impl PartialEq for Serving {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Leader(a), Self::Leader(b)) => Arc::ptr_eq(a, b),
            (Self::NotLeader { leader: a }, Self::NotLeader { leader: b }) => a == b,
            _ => false,
        }
    }
}

impl Eq for Serving {}

/// Picks one service's address out of a member's endpoints, so that a hint names the address
/// of the service the refused caller used.
pub type ServiceAddress = fn(&RmEndpoints) -> &HostPort;

/// The check at the top of every leader-only operation.
///
/// Guarantee: [`LeaderGate::require_leader`] succeeds only while this replica is
/// [`Serving::Leader`]; otherwise it returns [`RmError::NotLeader`] (the call was not
/// executed, so any client may resend it) with, when a configured leader is known, the
/// leader's address of the same service.
#[derive(Debug, Clone)]
pub struct LeaderGate {
    rm_id: String,
    ha: RmHaConfig,
    service: &'static str,
    address: ServiceAddress,
    serving: watch::Receiver<Serving>,
}

impl LeaderGate {
    /// The gate of replica `rm_id` for `service` (named in refusals), whose address on each
    /// member `address` picks.
    pub fn new(
        rm_id: impl Into<String>,
        ha: RmHaConfig,
        service: &'static str,
        address: ServiceAddress,
        serving: watch::Receiver<Serving>,
    ) -> Self {
        Self {
            rm_id: rm_id.into(),
            ha,
            service,
            address,
            serving,
        }
    }

    /// The current role.
    pub fn serving(&self) -> Serving {
        self.serving.borrow().clone()
    }

    /// The leadership this replica serves, whose soft state is the only one a handler may use.
    ///
    /// # Errors
    ///
    /// The refusal described on the type when this replica is not the serving leader.
    pub fn require_leader(&self) -> Result<Arc<Leadership>, RmError> {
        match self.serving() {
            Serving::Leader(leadership) => Ok(leadership),
            Serving::NotLeader { leader } => Err(self.refusal(leader.as_deref()).into()),
        }
    }

    /// The refusal for a call this replica did not execute because `leader` (if known) leads.
    pub fn refusal(&self, leader: Option<&str>) -> NotLeader {
        let hint = leader.and_then(|id| {
            let endpoints = self.ha.member(id)?;
            Some(LeaderHint {
                rm_id: id.to_owned(),
                address: (self.address)(endpoints).to_string(),
            })
        });
        NotLeader {
            replica: self.rm_id.clone(),
            service: self.service,
            leader: leader.map(str::to_owned),
            hint,
        }
    }
}

#[cfg(test)]
mod tests {
    use tonic::Status;
    use yarn_conf::Configuration;
    use yarn_proto::{LEADER_HINT_HEADER, NOT_LEADER_HEADER};

    use super::*;
    use crate::nodes::NodeTracker;
    use crate::scheduling::ActivitiesSettings;

    fn gate(serving: Serving) -> (LeaderGate, watch::Sender<Serving>) {
        let mut conf = Configuration::new();
        conf.set("yarn.resourcemanager.ha.enabled", "true");
        conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2");
        conf.set("yarn.resourcemanager.hostname.rm1", "h1");
        conf.set("yarn.resourcemanager.hostname.rm2", "h2");
        let ha = RmHaConfig::from_conf(&conf).unwrap();
        let (tx, rx) = watch::channel(serving);
        (LeaderGate::new("rm2", ha, "admin", |e| &e.admin, rx), tx)
    }

    fn header<'a>(status: &'a Status, key: &str) -> Option<&'a str> {
        status.metadata().get(key).and_then(|v| v.to_str().ok())
    }

    #[test]
    fn a_follower_refuses_with_the_leaders_address_of_the_same_service() {
        let (gate, _tx) = gate(Serving::NotLeader {
            leader: Some("rm1".into()),
        });
        // As a gRPC caller sees it.
        let status = Status::from(gate.require_leader().unwrap_err());
        assert_eq!(status.code(), tonic::Code::Unavailable);
        assert_eq!(header(&status, NOT_LEADER_HEADER), Some("rm2"));
        assert_eq!(header(&status, LEADER_HINT_HEADER), Some("rm1=h1:8033"));
        assert!(status.message().contains("h1:8033"), "{}", status.message());
    }

    #[test]
    fn without_a_known_configured_leader_there_is_no_hint_but_still_the_marker() {
        for leader in [None, Some("rm7".to_owned())] {
            let (gate, _tx) = gate(Serving::NotLeader { leader });
            let status = Status::from(gate.require_leader().unwrap_err());
            assert_eq!(header(&status, NOT_LEADER_HEADER), Some("rm2"));
            assert_eq!(header(&status, LEADER_HINT_HEADER), None);
        }
    }

    #[test]
    fn the_serving_leader_passes_with_its_leadership_and_stops_passing_on_step_down() {
        let leadership = Arc::new(Leadership::new(
            3,
            2,
            NodeTracker::default(),
            ActivitiesSettings::default(),
        ));
        let (gate, tx) = gate(Serving::Leader(Arc::clone(&leadership)));
        assert!(Arc::ptr_eq(&gate.require_leader().unwrap(), &leadership));
        tx.send_replace(Serving::NotLeader { leader: None });
        assert!(gate.require_leader().is_err());
    }
}

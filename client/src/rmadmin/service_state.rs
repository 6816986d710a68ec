//! The HA state of one replica, as rmadmin prints it.

use std::fmt;

use yarn_proto::pb::HaServiceStateProto;

/// A replica's HA state: `Active` on the serving Raft leader, `Standby` elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceState {
    /// Starting up.
    Initializing,
    /// The serving leader.
    Active,
    /// A follower or learner.
    Standby,
    /// Shutting down.
    Stopping,
}

impl ServiceState {
    /// The state of a `GetServiceStatus` reply's `state` field; `None` for `UNSPECIFIED` and
    /// values outside the enum, which a conforming server never sends.
    pub fn from_proto(state: i32) -> Option<Self> {
        match HaServiceStateProto::try_from(state).ok()? {
            HaServiceStateProto::Initializing => Some(Self::Initializing),
            HaServiceStateProto::Active => Some(Self::Active),
            HaServiceStateProto::Standby => Some(Self::Standby),
            HaServiceStateProto::Stopping => Some(Self::Stopping),
            HaServiceStateProto::HaServiceStateUnspecified => None,
        }
    }

    /// The lowercase word Hadoop's rmadmin prints (`active`, `standby`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Initializing => "initializing",
            Self::Active => "active",
            Self::Standby => "standby",
            Self::Stopping => "stopping",
        }
    }
}

impl fmt::Display for ServiceState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proto_states_map_to_hadoop_words() {
        assert_eq!(
            ServiceState::from_proto(HaServiceStateProto::Active as i32).map(ServiceState::as_str),
            Some("active")
        );
        assert_eq!(
            ServiceState::from_proto(HaServiceStateProto::Standby as i32).map(|s| s.to_string()),
            Some("standby".to_owned())
        );
        assert_eq!(ServiceState::from_proto(0), None);
        assert_eq!(ServiceState::from_proto(42), None);
    }
}

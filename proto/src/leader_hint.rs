//! The leader hint a follower attaches to its refusal of a leader-only RPC.

use std::fmt;
use std::str::FromStr;

use crate::ProtoError;

/// The gRPC metadata key of the hint. A follower answers leader-only RPCs with `UNAVAILABLE` and
/// this header; clients retry at the named address instead of guessing.
pub const LEADER_HINT_HEADER: &str = "x-yarn-ha-leader";

/// The gRPC metadata key a replica sets, to its own rm id, on every refusal of a leader-only RPC
/// because it is not the serving leader. Such a refusal guarantees the call was not executed, so
/// a client may resend even a non-idempotent call elsewhere; an `UNAVAILABLE` without this header
/// (a dropped connection, a deadline) proves nothing of the kind.
pub const NOT_LEADER_HEADER: &str = "x-yarn-ha-not-leader";

/// The leader as a follower knows it: its rm id and the address of the same service the client
/// called, written as `<rm-id>=<host>:<port>` in the header.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LeaderHint {
    /// The leader's id, one of `yarn.resourcemanager.ha.rm-ids`.
    pub rm_id: String,
    /// `host:port` of the service the refused call was for.
    pub address: String,
}

impl fmt::Display for LeaderHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.rm_id, self.address)
    }
}

impl FromStr for LeaderHint {
    type Err = ProtoError;

    /// Parses `<rm-id>=<host>:<port>`; both parts must be non-empty and the value must be a
    /// legal header value (visible ASCII), since it travels as gRPC metadata.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || ProtoError::InvalidField {
            record: "metadata",
            field: LEADER_HINT_HEADER,
            value: s.to_owned(),
            expected: "<rm-id>=<host>:<port>",
        };
        if !s.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(invalid());
        }
        let (rm_id, address) = s.split_once('=').ok_or_else(invalid)?;
        let port_ok = address
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
        if rm_id.is_empty() || !port_ok {
            return Err(invalid());
        }
        Ok(Self {
            rm_id: rm_id.to_owned(),
            address: address.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_malformed_hints() {
        let hint = LeaderHint {
            rm_id: "rm2".into(),
            address: "10.0.0.2:8032".into(),
        };
        assert_eq!(hint.to_string(), "rm2=10.0.0.2:8032");
        assert_eq!(hint.to_string().parse::<LeaderHint>().unwrap(), hint);
        assert_eq!(
            "rm1=[::1]:8032".parse::<LeaderHint>().unwrap().address,
            "[::1]:8032"
        );
        for bad in [
            "",
            "rm2",
            "=h:1",
            "rm2=h",
            "rm2=:80",
            "rm2=h:x",
            "rm 2=h:1",
            "rm2=h:70000",
        ] {
            let err = bad.parse::<LeaderHint>().unwrap_err();
            assert!(err.to_string().contains(LEADER_HINT_HEADER), "{bad}: {err}");
        }
    }
}

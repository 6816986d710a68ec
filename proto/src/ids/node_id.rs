//! [`NodeId`] and its string form `<host>:<port>`.

use std::fmt;
use std::str::FromStr;

use crate::error::{IdKind, ProtoError};
use crate::ids::reader::IdReader;

/// Identifies a NodeManager: the host it runs on and the port of its container manager.
///
/// As in Hadoop, the host may not contain `:` (so IPv6 literals are not supported); [`FromStr`]
/// and the protobuf conversion refuse such hosts, and an empty host.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    /// Host name or IPv4 address.
    pub host: String,
    /// Port of the NodeManager's container-manager service.
    pub port: u16,
}

impl NodeId {
    /// Builds an id from its two parts.
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        Self {
            host: host.into(),
            port,
        }
    }
}

/// Prints `<host>:<port>`, for example `nm1.example.com:8041`.
impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// Reads `<host>:<port>`.
///
/// Fails with [`ProtoError::MalformedId`] when the host or port is missing, the port is not a
/// number in `0..=65535`, or more than one `:` appears.
impl FromStr for NodeId {
    type Err = ProtoError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let mut reader = IdReader::new(IdKind::NodeId, input, "", ':')?;
        let host = reader.component("host")?;
        let port = reader.number("port")?;
        reader.finish()?;
        Ok(Self::new(host, port))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::IdProblem;

    fn problem(input: &str) -> IdProblem {
        match input.parse::<NodeId>() {
            Err(ProtoError::MalformedId { kind, problem, .. }) => {
                assert_eq!(kind, IdKind::NodeId);
                problem
            }
            other => panic!("expected a malformed-id error for {input:?}, got {other:?}"),
        }
    }

    #[test]
    fn prints_and_parses_host_and_port() {
        let id = NodeId::new("nm1.example.com", 8041);
        assert_eq!(id.to_string(), "nm1.example.com:8041");
        assert_eq!("nm1.example.com:8041".parse(), Ok(id));
        assert_eq!("10.0.0.7:0".parse(), Ok(NodeId::new("10.0.0.7", 0)));
    }

    #[test]
    fn refuses_malformed_inputs() {
        let cases = [
            ("", IdProblem::Empty),
            ("nm1", IdProblem::MissingPart { part: "port" }),
            ("nm1:", IdProblem::MissingPart { part: "port" }),
            (":8041", IdProblem::MissingPart { part: "host" }),
            (
                "nm1:http",
                IdProblem::NotANumber {
                    part: "port",
                    text: "http".to_owned(),
                },
            ),
            (
                "nm1:-1",
                IdProblem::Negative {
                    part: "port",
                    text: "-1".to_owned(),
                },
            ),
            (
                "nm1:65536",
                IdProblem::TooLarge {
                    part: "port",
                    text: "65536".to_owned(),
                    max: 65535,
                },
            ),
            (
                "nm1:8041:1",
                IdProblem::TrailingText {
                    text: ":1".to_owned(),
                },
            ),
            ("::1:8041", IdProblem::MissingPart { part: "host" }),
        ];
        for (input, expected) in cases {
            assert_eq!(problem(input), expected, "input {input:?}");
        }
    }
}

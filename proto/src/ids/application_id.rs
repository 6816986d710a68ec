//! [`ApplicationId`] and its string form `application_<clusterTimestamp>_<appId>`.

use std::fmt;
use std::str::FromStr;

use crate::error::{IdKind, ProtoError};
use crate::ids::reader::IdReader;

/// Identifies an application across the cluster's lifetime: the cluster timestamp (when the
/// cluster first started, in ms since the Unix epoch) and a sequence number the RM increments
/// for every new application.
///
/// Orders by cluster timestamp, then number, as YARN does. Ids coming from YARN never have
/// negative parts; [`FromStr`] and the protobuf conversion refuse them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ApplicationId {
    /// Cluster start time, ms since the Unix epoch.
    pub cluster_timestamp: i64,
    /// The application's sequence number within the cluster.
    pub id: i32,
}

impl ApplicationId {
    /// Builds an id from its two parts.
    pub const fn new(cluster_timestamp: i64, id: i32) -> Self {
        Self {
            cluster_timestamp,
            id,
        }
    }
}

/// Prints `application_<clusterTimestamp>_<appId>` with the number zero-padded to at least four
/// digits, as Hadoop does: `application_1410901177871_0001`.
impl fmt::Display for ApplicationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "application_{}_{:04}", self.cluster_timestamp, self.id)
    }
}

/// Reads the form [`Display`](fmt::Display) prints; any number of leading zeros is accepted.
///
/// Fails with [`ProtoError::MalformedId`] naming the input and the part at fault.
impl FromStr for ApplicationId {
    type Err = ProtoError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let mut reader = IdReader::new(IdKind::ApplicationId, input, "application_", '_')?;
        let cluster_timestamp = reader.number("cluster timestamp")?;
        let id = reader.number("application number")?;
        reader.finish()?;
        Ok(Self::new(cluster_timestamp, id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::IdProblem;

    fn problem(input: &str) -> IdProblem {
        match input.parse::<ApplicationId>() {
            Err(ProtoError::MalformedId { kind, problem, .. }) => {
                assert_eq!(kind, IdKind::ApplicationId);
                problem
            }
            other => panic!("expected a malformed-id error for {input:?}, got {other:?}"),
        }
    }

    #[test]
    fn prints_number_padded_to_four_digits() {
        assert_eq!(
            ApplicationId::new(1410901177871, 1).to_string(),
            "application_1410901177871_0001"
        );
        assert_eq!(
            ApplicationId::new(1410901177871, 123456).to_string(),
            "application_1410901177871_123456"
        );
    }

    #[test]
    fn parses_with_or_without_padding() {
        let expected = ApplicationId::new(1410901177871, 7);
        assert_eq!("application_1410901177871_0007".parse(), Ok(expected));
        assert_eq!("application_1410901177871_7".parse(), Ok(expected));
    }

    #[test]
    fn orders_by_timestamp_then_number() {
        assert!(ApplicationId::new(1, 9) < ApplicationId::new(2, 1));
        assert!(ApplicationId::new(2, 1) < ApplicationId::new(2, 2));
    }

    #[test]
    fn refuses_malformed_inputs() {
        let not_a_number = |part: &'static str, text: &str| IdProblem::NotANumber {
            part,
            text: text.to_owned(),
        };
        let cases = [
            ("", IdProblem::Empty),
            (
                "app_1_0001",
                IdProblem::WrongPrefix {
                    prefix: "application_",
                },
            ),
            (
                "appattempt_1_0001_000001",
                IdProblem::WrongPrefix {
                    prefix: "application_",
                },
            ),
            (
                "application_",
                IdProblem::MissingPart {
                    part: "cluster timestamp",
                },
            ),
            (
                "application_1",
                IdProblem::MissingPart {
                    part: "application number",
                },
            ),
            (
                "application_1_",
                IdProblem::MissingPart {
                    part: "application number",
                },
            ),
            (
                "application__0001",
                IdProblem::MissingPart {
                    part: "cluster timestamp",
                },
            ),
            ("application_x_0001", not_a_number("cluster timestamp", "x")),
            (
                "application_1_00a1",
                not_a_number("application number", "00a1"),
            ),
            ("application_1_+1", not_a_number("application number", "+1")),
            ("application_1_ 1", not_a_number("application number", " 1")),
            (
                "application_1_-1",
                IdProblem::Negative {
                    part: "application number",
                    text: "-1".to_owned(),
                },
            ),
            (
                "application_-5_0001",
                IdProblem::Negative {
                    part: "cluster timestamp",
                    text: "-5".to_owned(),
                },
            ),
            (
                "application_1_2147483648",
                IdProblem::TooLarge {
                    part: "application number",
                    text: "2147483648".to_owned(),
                    max: i32::MAX as u64,
                },
            ),
            (
                "application_9223372036854775808_0001",
                IdProblem::TooLarge {
                    part: "cluster timestamp",
                    text: "9223372036854775808".to_owned(),
                    max: i64::MAX as u64,
                },
            ),
            (
                "application_1_0001_000001",
                IdProblem::TrailingText {
                    text: "_000001".to_owned(),
                },
            ),
            (
                "application_1_0001_",
                IdProblem::TrailingText {
                    text: "_".to_owned(),
                },
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(problem(input), expected, "input {input:?}");
        }
    }
}

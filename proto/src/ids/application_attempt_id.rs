//! [`ApplicationAttemptId`] and its string form
//! `appattempt_<clusterTimestamp>_<appId>_<attemptId>`.

use std::fmt;
use std::str::FromStr;

use crate::error::{IdKind, ProtoError};
use crate::ids::ApplicationId;
use crate::ids::reader::IdReader;

/// Identifies one attempt (one run of the application master) of an application. Attempts are
/// numbered from 1.
///
/// Orders by application, then attempt number, as YARN does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ApplicationAttemptId {
    /// The application this attempt belongs to.
    pub application_id: ApplicationId,
    /// The attempt's number within its application.
    pub attempt_id: i32,
}

impl ApplicationAttemptId {
    /// Builds an id from its two parts.
    pub const fn new(application_id: ApplicationId, attempt_id: i32) -> Self {
        Self {
            application_id,
            attempt_id,
        }
    }
}

/// Prints `appattempt_<clusterTimestamp>_<appId>_<attemptId>` with the application number
/// padded to at least four digits and the attempt to at least six, as Hadoop does:
/// `appattempt_1410901177871_0001_000001`.
impl fmt::Display for ApplicationAttemptId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let app = self.application_id;
        write!(
            f,
            "appattempt_{}_{:04}_{:06}",
            app.cluster_timestamp, app.id, self.attempt_id
        )
    }
}

/// Reads the form [`Display`](fmt::Display) prints; any number of leading zeros is accepted.
///
/// Fails with [`ProtoError::MalformedId`] naming the input and the part at fault.
impl FromStr for ApplicationAttemptId {
    type Err = ProtoError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let mut reader = IdReader::new(IdKind::ApplicationAttemptId, input, "appattempt_", '_')?;
        let cluster_timestamp = reader.number("cluster timestamp")?;
        let id = reader.number("application number")?;
        let attempt_id = reader.number("attempt number")?;
        reader.finish()?;
        Ok(Self::new(
            ApplicationId::new(cluster_timestamp, id),
            attempt_id,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::IdProblem;

    fn problem(input: &str) -> IdProblem {
        match input.parse::<ApplicationAttemptId>() {
            Err(ProtoError::MalformedId { kind, problem, .. }) => {
                assert_eq!(kind, IdKind::ApplicationAttemptId);
                problem
            }
            other => panic!("expected a malformed-id error for {input:?}, got {other:?}"),
        }
    }

    #[test]
    fn prints_hadoop_padding() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1410901177871, 1), 1);
        assert_eq!(attempt.to_string(), "appattempt_1410901177871_0001_000001");
        let wide = ApplicationAttemptId::new(ApplicationId::new(5, 12345), 1234567);
        assert_eq!(wide.to_string(), "appattempt_5_12345_1234567");
    }

    #[test]
    fn parses_printed_form() {
        assert_eq!(
            "appattempt_1410901177871_0002_000003".parse(),
            Ok(ApplicationAttemptId::new(
                ApplicationId::new(1410901177871, 2),
                3
            ))
        );
    }

    #[test]
    fn refuses_malformed_inputs() {
        let cases = [
            ("", IdProblem::Empty),
            (
                "application_1_0001",
                IdProblem::WrongPrefix {
                    prefix: "appattempt_",
                },
            ),
            (
                "appattempt_1_0001",
                IdProblem::MissingPart {
                    part: "attempt number",
                },
            ),
            (
                "appattempt_1_0001_",
                IdProblem::MissingPart {
                    part: "attempt number",
                },
            ),
            (
                "appattempt_1_0001_00000x",
                IdProblem::NotANumber {
                    part: "attempt number",
                    text: "00000x".to_owned(),
                },
            ),
            (
                "appattempt_1_0001_-1",
                IdProblem::Negative {
                    part: "attempt number",
                    text: "-1".to_owned(),
                },
            ),
            (
                "appattempt_1_0001_99999999999",
                IdProblem::TooLarge {
                    part: "attempt number",
                    text: "99999999999".to_owned(),
                    max: i32::MAX as u64,
                },
            ),
            (
                "appattempt_1_0001_000001_000001",
                IdProblem::TrailingText {
                    text: "_000001".to_owned(),
                },
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(problem(input), expected, "input {input:?}");
        }
    }
}

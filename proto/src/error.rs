//! The crate's one error type.

use std::fmt;

/// Everything that can go wrong in this crate: reading Hadoop's id strings and turning protobuf
/// messages into domain types.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtoError {
    /// A string is not a valid Hadoop id of the given kind.
    #[error("invalid {kind} {input:?}: {problem}; expected {}", kind.expected_form())]
    MalformedId {
        /// Which kind of id was being read.
        kind: IdKind,
        /// The whole input, as given.
        input: String,
        /// What is wrong with it.
        problem: IdProblem,
    },

    /// A protobuf message lacks a field the domain type cannot do without. In proto3 an unset
    /// message field and an empty string both count as missing.
    #[error("{message}.{field} is required but missing")]
    MissingField {
        /// The protobuf message name, for example `ContainerIdProto`.
        message: &'static str,
        /// The field name as written in the `.proto` file.
        field: &'static str,
    },

    /// An expiry time is not in Hadoop's ISO 8601 form.
    #[error(
        "Expire time is not in ISO8601 format. ISO8601 supported format is \
         yyyy-MM-dd'T'HH:mm:ss.SSSZ. Configured timeout value is {value}"
    )]
    InvalidExpiryTime {
        /// The value, as given.
        value: String,
    },

    /// A field holds a value its domain type does not allow.
    #[error("{record}.{field} = {value} is invalid: expected {expected}")]
    InvalidField {
        /// The protobuf message or domain type holding the field.
        record: &'static str,
        /// The field name.
        field: &'static str,
        /// The offending value, printed.
        value: String,
        /// What the field may hold.
        expected: &'static str,
    },
}

/// The kinds of Hadoop ids this crate reads and prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// `application_<clusterTimestamp>_<appId>`.
    ApplicationId,
    /// `appattempt_<clusterTimestamp>_<appId>_<attemptId>`.
    ApplicationAttemptId,
    /// `container_[e<epoch>_]<clusterTimestamp>_<appId>_<attemptId>_<containerId>`.
    ContainerId,
    /// `<host>:<port>`.
    NodeId,
    /// `reservation_<clusterTimestamp>_<id>`.
    ReservationId,
}

impl IdKind {
    /// The string form this kind of id must have, for error messages.
    pub const fn expected_form(self) -> &'static str {
        match self {
            Self::ApplicationId => "application_<clusterTimestamp>_<appId>",
            Self::ApplicationAttemptId => "appattempt_<clusterTimestamp>_<appId>_<attemptId>",
            Self::ContainerId => {
                "container_[e<epoch>_]<clusterTimestamp>_<appId>_<attemptId>_<containerId>"
            }
            Self::NodeId => "<host>:<port>",
            Self::ReservationId => "reservation_<clusterTimestamp>_<id>",
        }
    }
}

impl fmt::Display for IdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ApplicationId => "application id",
            Self::ApplicationAttemptId => "application attempt id",
            Self::ContainerId => "container id",
            Self::NodeId => "node id",
            Self::ReservationId => "reservation id",
        })
    }
}

/// What is wrong with a malformed id string. `part` names the component, such as
/// `"cluster timestamp"` or `"port"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdProblem {
    /// The input is the empty string.
    #[error("the string is empty")]
    Empty,
    /// The input does not start with the kind's prefix.
    #[error("it does not start with {prefix:?}")]
    WrongPrefix {
        /// The prefix that was expected, for example `"container_"`.
        prefix: &'static str,
    },
    /// A component is absent or empty.
    #[error("the {part} is missing")]
    MissingPart {
        /// The missing component.
        part: &'static str,
    },
    /// A numeric component holds something other than decimal digits.
    #[error("the {part} {text:?} is not a decimal number")]
    NotANumber {
        /// The component.
        part: &'static str,
        /// Its text.
        text: String,
    },
    /// A numeric component is negative; Hadoop never prints negative id parts.
    #[error("the {part} {text:?} is negative")]
    Negative {
        /// The component.
        part: &'static str,
        /// Its text.
        text: String,
    },
    /// A numeric component is larger than its field can hold.
    #[error("the {part} {text:?} is larger than {max}")]
    TooLarge {
        /// The component.
        part: &'static str,
        /// Its text.
        text: String,
        /// The largest value allowed.
        max: u64,
    },
    /// Text follows the last component.
    #[error("unexpected trailing text {text:?}")]
    TrailingText {
        /// Everything after the last expected component.
        text: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_id_message_names_input_problem_and_expected_form() {
        let error = ProtoError::MalformedId {
            kind: IdKind::ContainerId,
            input: "container_1_x".to_owned(),
            problem: IdProblem::NotANumber {
                part: "application number",
                text: "x".to_owned(),
            },
        };
        assert_eq!(
            error.to_string(),
            "invalid container id \"container_1_x\": the application number \"x\" is not a \
             decimal number; expected \
             container_[e<epoch>_]<clusterTimestamp>_<appId>_<attemptId>_<containerId>"
        );
    }

    #[test]
    fn missing_field_message_names_message_and_field() {
        let error = ProtoError::MissingField {
            message: "ContainerIdProto",
            field: "app_attempt_id",
        };
        assert_eq!(
            error.to_string(),
            "ContainerIdProto.app_attempt_id is required but missing"
        );
    }
}

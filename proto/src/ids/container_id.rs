//! [`ContainerId`] and its string form
//! `container_[e<epoch>_]<clusterTimestamp>_<appId>_<attemptId>_<containerId>`.

use std::fmt;
use std::str::FromStr;

use crate::error::{IdKind, IdProblem, ProtoError};
use crate::ids::reader::IdReader;
use crate::ids::{ApplicationAttemptId, ApplicationId};

/// Identifies a container: the attempt it was allocated to and a 64-bit number that holds the
/// RM epoch in bits 40 and up and a per-application sequence in bits 0 to 39, as in YARN.
///
/// Each new RM leader bumps the epoch, so containers allocated by different leaders can never
/// share an id even if a sequence counter restarts. The raw number is kept non-negative: the
/// epoch is at most [`MAX_EPOCH`](Self::MAX_EPOCH) and the sequence at most
/// [`MAX_SEQUENCE`](Self::MAX_SEQUENCE), which every constructor checks.
///
/// Orders by attempt, then raw number, as YARN does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContainerId {
    application_attempt_id: ApplicationAttemptId,
    container_id: i64,
}

impl ContainerId {
    /// How far the epoch is shifted left in the raw number.
    pub const EPOCH_SHIFT: u32 = 40;
    /// The bits of the raw number that hold the sequence.
    pub const SEQUENCE_MASK: i64 = (1 << Self::EPOCH_SHIFT) - 1;
    /// The largest sequence number.
    pub const MAX_SEQUENCE: i64 = Self::SEQUENCE_MASK;
    /// The largest epoch that keeps the raw number non-negative (2^23 - 1).
    pub const MAX_EPOCH: i64 = i64::MAX >> Self::EPOCH_SHIFT;

    /// Builds the id of container `sequence` allocated to `application_attempt_id` under RM
    /// epoch `epoch`.
    ///
    /// Fails with [`ProtoError::InvalidField`] when the epoch is outside
    /// `0..=MAX_EPOCH` or the sequence outside `0..=MAX_SEQUENCE`.
    pub fn new(
        application_attempt_id: ApplicationAttemptId,
        epoch: i64,
        sequence: i64,
    ) -> Result<Self, ProtoError> {
        if !(0..=Self::MAX_EPOCH).contains(&epoch) {
            return Err(ProtoError::InvalidField {
                record: "ContainerId",
                field: "epoch",
                value: epoch.to_string(),
                expected: "an epoch in 0..=8388607",
            });
        }
        if !(0..=Self::MAX_SEQUENCE).contains(&sequence) {
            return Err(ProtoError::InvalidField {
                record: "ContainerId",
                field: "sequence",
                value: sequence.to_string(),
                expected: "a sequence in 0..=1099511627775",
            });
        }
        Ok(Self {
            application_attempt_id,
            container_id: (epoch << Self::EPOCH_SHIFT) | sequence,
        })
    }

    /// Builds an id from the raw 64-bit number, epoch bits included, as it travels in
    /// `ContainerIdProto.id`.
    ///
    /// Fails with [`ProtoError::InvalidField`] when the number is negative.
    pub fn from_raw(
        application_attempt_id: ApplicationAttemptId,
        container_id: i64,
    ) -> Result<Self, ProtoError> {
        if container_id < 0 {
            return Err(ProtoError::InvalidField {
                record: "ContainerId",
                field: "container_id",
                value: container_id.to_string(),
                expected: "a non-negative container number",
            });
        }
        Ok(Self {
            application_attempt_id,
            container_id,
        })
    }

    /// The attempt the container was allocated to. With containers kept across attempts this
    /// may be an earlier attempt than the one now managing the container.
    pub const fn application_attempt_id(&self) -> ApplicationAttemptId {
        self.application_attempt_id
    }

    /// The application the container belongs to.
    pub const fn application_id(&self) -> ApplicationId {
        self.application_attempt_id.application_id
    }

    /// The raw number: epoch and sequence together.
    pub const fn container_id(&self) -> i64 {
        self.container_id
    }

    /// The RM epoch that allocated the container.
    pub const fn epoch(&self) -> i64 {
        self.container_id >> Self::EPOCH_SHIFT
    }

    /// The container's sequence number within its application and epoch.
    pub const fn sequence(&self) -> i64 {
        self.container_id & Self::SEQUENCE_MASK
    }
}

/// Prints Hadoop's form: `container_e17_1410901177871_0001_01_000005`, or without the `e<epoch>_`
/// part when the epoch is 0 (`container_1410901177871_0001_01_000005`). The epoch and attempt are
/// padded to at least two digits, the application number to four and the sequence to six.
impl fmt::Display for ContainerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("container_")?;
        let epoch = self.epoch();
        if epoch > 0 {
            write!(f, "e{epoch:02}_")?;
        }
        let attempt = self.application_attempt_id;
        let app = attempt.application_id;
        write!(
            f,
            "{}_{:04}_{:02}_{:06}",
            app.cluster_timestamp,
            app.id,
            attempt.attempt_id,
            self.sequence()
        )
    }
}

/// Reads the form [`Display`](fmt::Display) prints; any number of leading zeros is accepted, and
/// so is an explicit `e0_` (`e00_`) for epoch 0.
///
/// Fails with [`ProtoError::MalformedId`] naming the input and the part at fault, including an
/// epoch above [`ContainerId::MAX_EPOCH`] or a sequence above [`ContainerId::MAX_SEQUENCE`].
impl FromStr for ContainerId {
    type Err = ProtoError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let mut reader = IdReader::new(IdKind::ContainerId, input, "container_", '_')?;
        let first = reader.component("cluster timestamp")?;
        let (epoch, cluster_timestamp) = match first.strip_prefix('e') {
            Some("") => return Err(reader.fail(IdProblem::MissingPart { part: "epoch" })),
            Some(epoch) => (
                reader.bounded("epoch", epoch, Self::MAX_EPOCH)?,
                reader.number("cluster timestamp")?,
            ),
            None => (0, reader.parse_number("cluster timestamp", first)?),
        };
        let id = reader.number("application number")?;
        let attempt_id = reader.number("attempt number")?;
        let sequence_text = reader.component("container number")?;
        let sequence = reader.bounded("container number", sequence_text, Self::MAX_SEQUENCE)?;
        reader.finish()?;
        let attempt =
            ApplicationAttemptId::new(ApplicationId::new(cluster_timestamp, id), attempt_id);
        Self::new(attempt, epoch, sequence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(cluster_timestamp: i64, id: i32, attempt_id: i32) -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(cluster_timestamp, id), attempt_id)
    }

    fn must_container(epoch: i64, sequence: i64) -> ContainerId {
        match ContainerId::new(attempt(1410901177871, 1, 1), epoch, sequence) {
            Ok(id) => id,
            Err(e) => panic!("valid container id refused: {e}"),
        }
    }

    fn problem(input: &str) -> IdProblem {
        match input.parse::<ContainerId>() {
            Err(ProtoError::MalformedId { kind, problem, .. }) => {
                assert_eq!(kind, IdKind::ContainerId);
                problem
            }
            other => panic!("expected a malformed-id error for {input:?}, got {other:?}"),
        }
    }

    #[test]
    fn epoch_and_sequence_share_the_raw_number() {
        let id = must_container(17, 5);
        assert_eq!(id.container_id(), (17 << 40) | 5);
        assert_eq!(id.epoch(), 17);
        assert_eq!(id.sequence(), 5);
        let widest = must_container(ContainerId::MAX_EPOCH, ContainerId::MAX_SEQUENCE);
        assert_eq!(widest.container_id(), i64::MAX);
        assert_eq!(widest.epoch(), 8_388_607);
        assert_eq!(widest.sequence(), 1_099_511_627_775);
    }

    #[test]
    fn new_refuses_out_of_range_parts() {
        let app_attempt = attempt(1, 1, 1);
        for (epoch, sequence, field) in [
            (-1, 1, "epoch"),
            (ContainerId::MAX_EPOCH + 1, 1, "epoch"),
            (1, -1, "sequence"),
            (1, ContainerId::MAX_SEQUENCE + 1, "sequence"),
        ] {
            match ContainerId::new(app_attempt, epoch, sequence) {
                Err(ProtoError::InvalidField { field: got, .. }) => assert_eq!(got, field),
                other => panic!("epoch {epoch} sequence {sequence}: got {other:?}"),
            }
        }
    }

    #[test]
    fn from_raw_refuses_negative_numbers() {
        assert!(matches!(
            ContainerId::from_raw(attempt(1, 1, 1), -1),
            Err(ProtoError::InvalidField {
                field: "container_id",
                ..
            })
        ));
        assert_eq!(
            ContainerId::from_raw(attempt(1, 1, 1), (3 << 40) | 9)
                .map(|id| (id.epoch(), id.sequence())),
            Ok((3, 9))
        );
    }

    #[test]
    fn prints_hadoop_forms() {
        assert_eq!(
            must_container(0, 5).to_string(),
            "container_1410901177871_0001_01_000005"
        );
        assert_eq!(
            must_container(17, 5).to_string(),
            "container_e17_1410901177871_0001_01_000005"
        );
        assert_eq!(
            must_container(1, 5).to_string(),
            "container_e01_1410901177871_0001_01_000005"
        );
        assert_eq!(
            must_container(123, 1234567).to_string(),
            "container_e123_1410901177871_0001_01_1234567"
        );
        let wide = ContainerId::new(attempt(7, 12345, 100), 0, 1).map(|id| id.to_string());
        assert_eq!(wide, Ok("container_7_12345_100_000001".to_owned()));
    }

    #[test]
    fn parses_with_and_without_epoch() {
        assert_eq!(
            "container_e17_1410901177871_0001_01_000005".parse(),
            Ok(must_container(17, 5))
        );
        assert_eq!(
            "container_1410901177871_0001_01_000005".parse(),
            Ok(must_container(0, 5))
        );
        assert_eq!(
            "container_e00_1410901177871_1_1_5".parse(),
            Ok(must_container(0, 5))
        );
    }

    #[test]
    fn refuses_malformed_inputs() {
        let cases = [
            ("", IdProblem::Empty),
            (
                "containr_1_0001_01_000001",
                IdProblem::WrongPrefix {
                    prefix: "container_",
                },
            ),
            (
                "container",
                IdProblem::WrongPrefix {
                    prefix: "container_",
                },
            ),
            (
                "container_1_x",
                IdProblem::NotANumber {
                    part: "application number",
                    text: "x".to_owned(),
                },
            ),
            (
                "container_1_0001_01",
                IdProblem::MissingPart {
                    part: "container number",
                },
            ),
            (
                "container_e17_1_0001_01",
                IdProblem::MissingPart {
                    part: "container number",
                },
            ),
            (
                "container_e_1_0001_01_000001",
                IdProblem::MissingPart { part: "epoch" },
            ),
            (
                "container_e1x_1_0001_01_000001",
                IdProblem::NotANumber {
                    part: "epoch",
                    text: "1x".to_owned(),
                },
            ),
            (
                "container_e-1_1_0001_01_000001",
                IdProblem::Negative {
                    part: "epoch",
                    text: "-1".to_owned(),
                },
            ),
            (
                "container_e8388608_1_0001_01_000001",
                IdProblem::TooLarge {
                    part: "epoch",
                    text: "8388608".to_owned(),
                    max: 8_388_607,
                },
            ),
            (
                "container_1_0001_01_1099511627776",
                IdProblem::TooLarge {
                    part: "container number",
                    text: "1099511627776".to_owned(),
                    max: 1_099_511_627_775,
                },
            ),
            (
                "container_1_0001_01_99999999999999999999",
                IdProblem::TooLarge {
                    part: "container number",
                    text: "99999999999999999999".to_owned(),
                    max: i64::MAX as u64,
                },
            ),
            (
                "container_1_0001_-1_000001",
                IdProblem::Negative {
                    part: "attempt number",
                    text: "-1".to_owned(),
                },
            ),
            (
                "container_1_0001_01_000001_02",
                IdProblem::TrailingText {
                    text: "_02".to_owned(),
                },
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(problem(input), expected, "input {input:?}");
        }
    }
}

//! [`ReservationId`] and its string form `reservation_<clusterTimestamp>_<id>`.

use std::fmt;
use std::str::FromStr;

use crate::error::{IdKind, ProtoError};
use crate::ids::reader::IdReader;
use crate::pb;

/// Identifies a reservation of the ReservationSystem: the cluster timestamp and a sequence
/// number the RM hands out once.
///
/// Orders by cluster timestamp, then number. Ids coming from YARN never have negative parts;
/// [`FromStr`] and the protobuf conversion refuse them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReservationId {
    /// Cluster start time, ms since the Unix epoch.
    pub cluster_timestamp: i64,
    /// The reservation's sequence number within the cluster.
    pub id: i64,
}

impl ReservationId {
    /// Builds an id from its two parts.
    pub const fn new(cluster_timestamp: i64, id: i64) -> Self {
        Self {
            cluster_timestamp,
            id,
        }
    }
}

/// Prints `reservation_<clusterTimestamp>_<id>` with the number zero-padded to at least four
/// digits, as Hadoop does: `reservation_1404198295326_0003`.
impl fmt::Display for ReservationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reservation_{}_{:04}", self.cluster_timestamp, self.id)
    }
}

/// Reads the form [`Display`](fmt::Display) prints; any number of leading zeros is accepted.
///
/// Fails with [`ProtoError::MalformedId`] naming the input and the part at fault.
impl FromStr for ReservationId {
    type Err = ProtoError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let mut reader = IdReader::new(IdKind::ReservationId, input, "reservation_", '_')?;
        let cluster_timestamp = reader.number("cluster timestamp")?;
        let id = reader.number("reservation number")?;
        reader.finish()?;
        Ok(Self::new(cluster_timestamp, id))
    }
}

impl From<ReservationId> for pb::ReservationIdProto {
    fn from(id: ReservationId) -> Self {
        Self {
            id: id.id,
            cluster_timestamp: id.cluster_timestamp,
        }
    }
}

impl TryFrom<pb::ReservationIdProto> for ReservationId {
    type Error = ProtoError;

    /// Fails with [`ProtoError::InvalidField`] when either part is negative.
    fn try_from(proto: pb::ReservationIdProto) -> Result<Self, Self::Error> {
        for (field, value) in [
            ("cluster_timestamp", proto.cluster_timestamp),
            ("id", proto.id),
        ] {
            if value < 0 {
                return Err(ProtoError::InvalidField {
                    record: "ReservationIdProto",
                    field,
                    value: value.to_string(),
                    expected: "a non-negative number",
                });
            }
        }
        Ok(Self::new(proto.cluster_timestamp, proto.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_and_parses_as_hadoop_does() {
        let id = ReservationId::new(1404198295326, 3);
        assert_eq!(id.to_string(), "reservation_1404198295326_0003");
        assert_eq!("reservation_1404198295326_3".parse(), Ok(id));
        assert_eq!(
            ReservationId::try_from(pb::ReservationIdProto::from(id)),
            Ok(id)
        );
    }

    #[test]
    fn refuses_malformed_inputs_and_negative_parts() {
        for bad in [
            "",
            "application_1_0001",
            "reservation_1",
            "reservation_1_x",
            "reservation_1_2_3",
        ] {
            assert!(
                matches!(
                    bad.parse::<ReservationId>(),
                    Err(ProtoError::MalformedId {
                        kind: IdKind::ReservationId,
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
        let negative = pb::ReservationIdProto {
            id: -1,
            cluster_timestamp: 1,
        };
        assert!(ReservationId::try_from(negative).is_err());
    }
}

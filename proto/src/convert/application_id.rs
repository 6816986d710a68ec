//! `ApplicationId` <-> `ApplicationIdProto`.

use crate::ProtoError;
use crate::ids::ApplicationId;
use crate::pb;

impl From<ApplicationId> for pb::ApplicationIdProto {
    fn from(id: ApplicationId) -> Self {
        Self {
            id: id.id,
            cluster_timestamp: id.cluster_timestamp,
        }
    }
}

impl TryFrom<pb::ApplicationIdProto> for ApplicationId {
    type Error = ProtoError;

    /// Fails with [`ProtoError::InvalidField`] when either part is negative.
    fn try_from(proto: pb::ApplicationIdProto) -> Result<Self, Self::Error> {
        if proto.cluster_timestamp < 0 {
            return Err(ProtoError::InvalidField {
                record: "ApplicationIdProto",
                field: "cluster_timestamp",
                value: proto.cluster_timestamp.to_string(),
                expected: "a non-negative timestamp",
            });
        }
        if proto.id < 0 {
            return Err(ProtoError::InvalidField {
                record: "ApplicationIdProto",
                field: "id",
                value: proto.id.to_string(),
                expected: "a non-negative application number",
            });
        }
        Ok(Self::new(proto.cluster_timestamp, proto.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_protobuf() {
        let id = ApplicationId::new(1410901177871, 42);
        let proto = pb::ApplicationIdProto::from(id);
        assert_eq!(proto.cluster_timestamp, 1410901177871);
        assert_eq!(proto.id, 42);
        assert_eq!(ApplicationId::try_from(proto), Ok(id));
    }

    #[test]
    fn refuses_negative_parts() {
        for (cluster_timestamp, id, field) in [(-1, 1, "cluster_timestamp"), (1, -1, "id")] {
            let proto = pb::ApplicationIdProto {
                id,
                cluster_timestamp,
            };
            match ApplicationId::try_from(proto) {
                Err(ProtoError::InvalidField {
                    record: "ApplicationIdProto",
                    field: got,
                    ..
                }) => assert_eq!(got, field),
                other => panic!("expected {field} to be refused, got {other:?}"),
            }
        }
    }
}

//! `ApplicationAttemptId` <-> `ApplicationAttemptIdProto`.

use crate::ProtoError;
use crate::ids::{ApplicationAttemptId, ApplicationId};
use crate::pb;

impl From<ApplicationAttemptId> for pb::ApplicationAttemptIdProto {
    fn from(id: ApplicationAttemptId) -> Self {
        Self {
            application_id: Some(id.application_id.into()),
            attempt_id: id.attempt_id,
        }
    }
}

impl TryFrom<pb::ApplicationAttemptIdProto> for ApplicationAttemptId {
    type Error = ProtoError;

    /// Fails with [`ProtoError::MissingField`] without an `application_id`, and with
    /// [`ProtoError::InvalidField`] when any part is negative.
    fn try_from(proto: pb::ApplicationAttemptIdProto) -> Result<Self, Self::Error> {
        let application_id = proto.application_id.ok_or(ProtoError::MissingField {
            message: "ApplicationAttemptIdProto",
            field: "application_id",
        })?;
        if proto.attempt_id < 0 {
            return Err(ProtoError::InvalidField {
                record: "ApplicationAttemptIdProto",
                field: "attempt_id",
                value: proto.attempt_id.to_string(),
                expected: "a non-negative attempt number",
            });
        }
        Ok(Self::new(
            ApplicationId::try_from(application_id)?,
            proto.attempt_id,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_protobuf() {
        let id = ApplicationAttemptId::new(ApplicationId::new(1410901177871, 3), 2);
        let proto = pb::ApplicationAttemptIdProto::from(id);
        assert_eq!(proto.attempt_id, 2);
        assert_eq!(ApplicationAttemptId::try_from(proto), Ok(id));
    }

    #[test]
    fn missing_application_id_names_message_and_field() {
        let proto = pb::ApplicationAttemptIdProto {
            application_id: None,
            attempt_id: 1,
        };
        assert_eq!(
            ApplicationAttemptId::try_from(proto),
            Err(ProtoError::MissingField {
                message: "ApplicationAttemptIdProto",
                field: "application_id",
            })
        );
    }

    #[test]
    fn refuses_negative_attempt() {
        let proto = pb::ApplicationAttemptIdProto {
            application_id: Some(ApplicationId::new(1, 1).into()),
            attempt_id: -1,
        };
        assert!(matches!(
            ApplicationAttemptId::try_from(proto),
            Err(ProtoError::InvalidField {
                field: "attempt_id",
                ..
            })
        ));
    }
}

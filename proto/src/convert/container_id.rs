//! `ContainerId` <-> `ContainerIdProto`.

use crate::ProtoError;
use crate::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use crate::pb;

/// Fills both `app_attempt_id` and the older `app_id`, as YARN does, so readers that look only
/// at `app_id` still find the application.
impl From<ContainerId> for pb::ContainerIdProto {
    fn from(id: ContainerId) -> Self {
        Self {
            app_id: Some(id.application_id().into()),
            app_attempt_id: Some(id.application_attempt_id().into()),
            id: id.container_id(),
        }
    }
}

impl TryFrom<pb::ContainerIdProto> for ContainerId {
    type Error = ProtoError;

    /// Reads the attempt from `app_attempt_id`; `app_id` may be absent, but when present it must
    /// name the same application.
    ///
    /// Fails with [`ProtoError::MissingField`] without an `app_attempt_id`, and with
    /// [`ProtoError::InvalidField`] when `id` is negative, `app_id` disagrees, or a nested id is
    /// invalid.
    fn try_from(proto: pb::ContainerIdProto) -> Result<Self, Self::Error> {
        let attempt = proto.app_attempt_id.ok_or(ProtoError::MissingField {
            message: "ContainerIdProto",
            field: "app_attempt_id",
        })?;
        let attempt = ApplicationAttemptId::try_from(attempt)?;
        if let Some(app_id) = proto.app_id {
            let app_id = ApplicationId::try_from(app_id)?;
            if app_id != attempt.application_id {
                return Err(ProtoError::InvalidField {
                    record: "ContainerIdProto",
                    field: "app_id",
                    value: app_id.to_string(),
                    expected: "the application of app_attempt_id",
                });
            }
        }
        if proto.id < 0 {
            return Err(ProtoError::InvalidField {
                record: "ContainerIdProto",
                field: "id",
                value: proto.id.to_string(),
                expected: "a non-negative container number",
            });
        }
        ContainerId::from_raw(attempt, proto.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt() -> ApplicationAttemptId {
        ApplicationAttemptId::new(ApplicationId::new(1410901177871, 1), 1)
    }

    #[test]
    fn round_trips_with_epoch_in_the_high_bits() {
        let id = match ContainerId::new(attempt(), 5, 77) {
            Ok(id) => id,
            Err(e) => panic!("valid container id refused: {e}"),
        };
        let proto = pb::ContainerIdProto::from(id);
        assert_eq!(proto.id, (5 << 40) | 77);
        assert_eq!(
            proto.app_id,
            Some(ApplicationId::new(1410901177871, 1).into())
        );
        assert_eq!(ContainerId::try_from(proto), Ok(id));
    }

    #[test]
    fn accepts_a_message_without_app_id() {
        let proto = pb::ContainerIdProto {
            app_id: None,
            app_attempt_id: Some(attempt().into()),
            id: 3,
        };
        assert_eq!(ContainerId::try_from(proto).map(|id| id.sequence()), Ok(3));
    }

    #[test]
    fn missing_attempt_names_message_and_field() {
        let proto = pb::ContainerIdProto {
            app_id: Some(ApplicationId::new(1, 1).into()),
            app_attempt_id: None,
            id: 1,
        };
        assert_eq!(
            ContainerId::try_from(proto),
            Err(ProtoError::MissingField {
                message: "ContainerIdProto",
                field: "app_attempt_id",
            })
        );
    }

    #[test]
    fn missing_nested_application_id_is_reported() {
        let proto = pb::ContainerIdProto {
            app_id: None,
            app_attempt_id: Some(pb::ApplicationAttemptIdProto {
                application_id: None,
                attempt_id: 1,
            }),
            id: 1,
        };
        assert_eq!(
            ContainerId::try_from(proto),
            Err(ProtoError::MissingField {
                message: "ApplicationAttemptIdProto",
                field: "application_id",
            })
        );
    }

    #[test]
    fn refuses_disagreeing_app_id_and_negative_id() {
        let disagreeing = pb::ContainerIdProto {
            app_id: Some(ApplicationId::new(1410901177871, 2).into()),
            app_attempt_id: Some(attempt().into()),
            id: 1,
        };
        assert!(matches!(
            ContainerId::try_from(disagreeing),
            Err(ProtoError::InvalidField {
                field: "app_id",
                ..
            })
        ));
        let negative = pb::ContainerIdProto {
            app_id: None,
            app_attempt_id: Some(attempt().into()),
            id: -1,
        };
        assert!(matches!(
            ContainerId::try_from(negative),
            Err(ProtoError::InvalidField { field: "id", .. })
        ));
    }
}

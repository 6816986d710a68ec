//! A container id as a map key, and as text for messages.

use yarn_proto::ids::ContainerId;
use yarn_proto::pb;

/// The identity of a `ContainerIdProto`: cluster timestamp, application, attempt and the raw
/// 64-bit number (epoch included).
///
/// Total over any message, however malformed, so that bookkeeping never fails on what a server
/// sent; the attempt comes from `app_attempt_id`, falling back to `app_id` as YARN's older
/// readers do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContainerKey {
    cluster_timestamp: i64,
    application: i32,
    attempt: i32,
    id: i64,
}

impl ContainerKey {
    /// The key of `proto`.
    pub fn of(proto: &pb::ContainerIdProto) -> Self {
        let attempt = proto.app_attempt_id.as_ref();
        let application = attempt
            .and_then(|attempt| attempt.application_id.as_ref())
            .or(proto.app_id.as_ref());
        Self {
            cluster_timestamp: application.map_or(0, |app| app.cluster_timestamp),
            application: application.map_or(0, |app| app.id),
            attempt: attempt.map_or(0, |attempt| attempt.attempt_id),
            id: proto.id,
        }
    }
}

/// `proto` in Hadoop's form (`container_e3_1410901177871_0001_01_000005`), or its raw fields when
/// it is not a valid id.
pub fn describe_container_id(proto: &pb::ContainerIdProto) -> String {
    match ContainerId::try_from(*proto) {
        Ok(id) => id.to_string(),
        Err(_) => {
            let key = ContainerKey::of(proto);
            format!(
                "(invalid id: cluster timestamp {}, application {}, attempt {}, number {})",
                key.cluster_timestamp, key.application, key.attempt, key.id
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;

    fn id(sequence: i64) -> pb::ContainerIdProto {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1410901177871, 1), 1);
        ContainerId::new(attempt, 3, sequence).unwrap().into()
    }

    #[test]
    fn keys_tell_containers_apart_and_ignore_the_redundant_app_id() {
        assert_eq!(ContainerKey::of(&id(5)), ContainerKey::of(&id(5)));
        assert_ne!(ContainerKey::of(&id(5)), ContainerKey::of(&id(6)));
        let mut without_app_id = id(5);
        without_app_id.app_id = None;
        assert_eq!(ContainerKey::of(&without_app_id), ContainerKey::of(&id(5)));
    }

    #[test]
    fn valid_ids_print_as_hadoop_does_and_invalid_ones_show_their_fields() {
        assert_eq!(
            describe_container_id(&id(5)),
            "container_e03_1410901177871_0001_01_000005"
        );
        let broken = pb::ContainerIdProto {
            app_id: None,
            app_attempt_id: None,
            id: 7,
        };
        assert_eq!(
            describe_container_id(&broken),
            "(invalid id: cluster timestamp 0, application 0, attempt 0, number 7)"
        );
    }
}

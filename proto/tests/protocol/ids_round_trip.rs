//! Property tests: printing and parsing ids, and converting them through protobuf, lose nothing.

use proptest::prelude::*;
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;

/// Small values (the common case, and the zero-padding edge) as often as the full range.
fn non_negative_i32() -> impl Strategy<Value = i32> {
    prop_oneof![0..=12_000_i32, 0..=i32::MAX]
}

fn application_id() -> impl Strategy<Value = ApplicationId> {
    (0..=i64::MAX, non_negative_i32()).prop_map(|(ts, id)| ApplicationId::new(ts, id))
}

fn application_attempt_id() -> impl Strategy<Value = ApplicationAttemptId> {
    (application_id(), non_negative_i32()).prop_map(|(app, n)| ApplicationAttemptId::new(app, n))
}

fn container_id() -> impl Strategy<Value = ContainerId> {
    let epoch = prop_oneof![Just(0_i64), 1..=120_i64, 0..=ContainerId::MAX_EPOCH];
    let sequence = prop_oneof![0..=2_000_000_i64, 0..=ContainerId::MAX_SEQUENCE];
    (application_attempt_id(), epoch, sequence).prop_filter_map(
        "epoch and sequence are drawn in range",
        |(attempt, epoch, sequence)| ContainerId::new(attempt, epoch, sequence).ok(),
    )
}

fn node_id() -> impl Strategy<Value = NodeId> {
    ("[a-zA-Z0-9][a-zA-Z0-9._-]{0,40}", any::<u16>())
        .prop_map(|(host, port)| NodeId::new(host, port))
}

proptest! {
    #[test]
    fn application_id_prints_then_parses_to_itself(id in application_id()) {
        let printed = id.to_string();
        prop_assert_eq!(printed.parse::<ApplicationId>(), Ok(id));
        prop_assert!(printed.rsplit('_').next().is_some_and(|n| n.len() >= 4), "{}", printed);
    }

    #[test]
    fn application_attempt_id_prints_then_parses_to_itself(id in application_attempt_id()) {
        let printed = id.to_string();
        prop_assert_eq!(printed.parse::<ApplicationAttemptId>(), Ok(id));
        prop_assert!(printed.rsplit('_').next().is_some_and(|n| n.len() >= 6), "{}", printed);
    }

    #[test]
    fn container_id_prints_then_parses_to_itself(id in container_id()) {
        let printed = id.to_string();
        prop_assert_eq!(printed.parse::<ContainerId>(), Ok(id));
        prop_assert_eq!(printed.starts_with("container_e"), id.epoch() > 0, "{}", printed);
    }

    #[test]
    fn node_id_prints_then_parses_to_itself(id in node_id()) {
        prop_assert_eq!(id.to_string().parse::<NodeId>(), Ok(id));
    }

    #[test]
    fn each_kind_refuses_the_other_kinds_strings(
        app in application_id(),
        attempt in application_attempt_id(),
        container in container_id(),
    ) {
        prop_assert!(app.to_string().parse::<ApplicationAttemptId>().is_err());
        prop_assert!(app.to_string().parse::<ContainerId>().is_err());
        prop_assert!(attempt.to_string().parse::<ApplicationId>().is_err());
        prop_assert!(attempt.to_string().parse::<ContainerId>().is_err());
        prop_assert!(container.to_string().parse::<ApplicationId>().is_err());
        prop_assert!(container.to_string().parse::<ApplicationAttemptId>().is_err());
    }

    #[test]
    fn domain_ids_survive_protobuf(
        app in application_id(),
        attempt in application_attempt_id(),
        container in container_id(),
        node in node_id(),
    ) {
        prop_assert_eq!(ApplicationId::try_from(pb::ApplicationIdProto::from(app)), Ok(app));
        prop_assert_eq!(
            ApplicationAttemptId::try_from(pb::ApplicationAttemptIdProto::from(attempt)),
            Ok(attempt)
        );
        prop_assert_eq!(
            ContainerId::try_from(pb::ContainerIdProto::from(container)),
            Ok(container)
        );
        prop_assert_eq!(NodeId::try_from(pb::NodeIdProto::from(&node)), Ok(node));
    }

    /// Any well-formed message, read into the domain, printed and parsed back, converts to the
    /// same message: the raw container number covers every epoch and sequence.
    #[test]
    fn printed_protobuf_ids_parse_back_to_the_same_message(
        cluster_timestamp in 0..=i64::MAX,
        app_number in non_negative_i32(),
        attempt_number in non_negative_i32(),
        raw_container in 0..=i64::MAX,
    ) {
        let app = pb::ApplicationIdProto { id: app_number, cluster_timestamp };
        let attempt = pb::ApplicationAttemptIdProto {
            application_id: Some(app),
            attempt_id: attempt_number,
        };
        let container = pb::ContainerIdProto {
            app_id: Some(app),
            app_attempt_id: Some(attempt),
            id: raw_container,
        };

        let printed = ApplicationId::try_from(app).map(|id| id.to_string());
        let reparsed = printed.and_then(|s| s.parse::<ApplicationId>());
        prop_assert_eq!(reparsed.map(pb::ApplicationIdProto::from), Ok(app));

        let printed = ApplicationAttemptId::try_from(attempt).map(|id| id.to_string());
        let reparsed = printed.and_then(|s| s.parse::<ApplicationAttemptId>());
        prop_assert_eq!(reparsed.map(pb::ApplicationAttemptIdProto::from), Ok(attempt));

        let printed = ContainerId::try_from(container).map(|id| id.to_string());
        let reparsed = printed.and_then(|s| s.parse::<ContainerId>());
        prop_assert_eq!(reparsed.map(pb::ContainerIdProto::from), Ok(container));
    }
}

//! Property tests: every decoder of input a peer controls (Hadoop id strings, the leader hint,
//! protobuf bytes and the ids inside them, tokens in call metadata) answers any input with a value
//! or an error, never a panic, and whatever it accepts prints back to a form it reads the same.

use std::fmt::{Debug, Display};
use std::str::FromStr;

use proptest::collection::vec;
use proptest::prelude::*;
use prost::Message;
use tonic::Status;
use tonic::metadata::{AsciiMetadataValue, MetadataMap, MetadataValue};
use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::token_metadata::{
    AMRM_TOKEN_METADATA_KEY, PresentedToken, REMOTE_CONTAINERS_REFUSED_HEADER,
    refused_remote_containers, remote_containers_refused,
};
use yarn_proto::{LeaderHint, pb};
use yarn_test_support::byte_mutation::mutations;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

// --- strategies ---

/// Any string, and strings shaped like Hadoop ids and leader hints with signs, epochs, overlong
/// numbers, empty parts and trailing text, which reach deeper into the parsers.
fn id_like_string() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "(application|appattempt|container)_(e?-?[0-9]{0,21}_){0,5}-?[0-9]{0,21}(_.{0,3})?",
        "[a-z0-9.:_=-]{0,12}:-?[0-9]{0,7}(:.{0,3})?",
        "[!-~]{0,6}=[!-~]{0,10}:[0-9]{0,6}",
    ]
}

fn any_i32() -> impl Strategy<Value = i32> {
    prop_oneof![any::<i32>(), -2..=2_i32, Just(i32::MIN), Just(i32::MAX)]
}

fn any_i64() -> impl Strategy<Value = i64> {
    prop_oneof![any::<i64>(), -2..=2_i64, Just(i64::MIN), Just(i64::MAX)]
}

fn application_id_proto() -> impl Strategy<Value = pb::ApplicationIdProto> {
    (any_i64(), any_i32()).prop_map(|(cluster_timestamp, id)| pb::ApplicationIdProto {
        id,
        cluster_timestamp,
    })
}

fn application_attempt_id_proto() -> impl Strategy<Value = pb::ApplicationAttemptIdProto> {
    (proptest::option::of(application_id_proto()), any_i32()).prop_map(
        |(application_id, attempt_id)| pb::ApplicationAttemptIdProto {
            application_id,
            attempt_id,
        },
    )
}

/// Container id messages whose `app_id` is absent, agrees with the attempt, or is arbitrary.
fn container_id_proto() -> impl Strategy<Value = pb::ContainerIdProto> {
    let raw = prop_oneof![
        any_i64(),
        Just(ContainerId::MAX_SEQUENCE + 1),
        Just(ContainerId::MAX_EPOCH << ContainerId::EPOCH_SHIFT),
    ];
    let app_id = prop_oneof![
        Just(None),
        Just(Some(None)),
        proptest::option::of(application_id_proto()).prop_map(Some),
    ];
    (application_attempt_id_proto(), app_id, raw).prop_map(|(attempt, app_id, id)| {
        let app_id = match app_id {
            None => None,
            Some(None) => attempt.application_id,
            Some(arbitrary) => arbitrary,
        };
        pb::ContainerIdProto {
            app_id,
            app_attempt_id: Some(attempt),
            id,
        }
    })
}

fn node_id_proto() -> impl Strategy<Value = pb::NodeIdProto> {
    let port = prop_oneof![any_i32(), Just(65_535), Just(65_536)];
    (prop_oneof![any::<String>(), "[a-z:.]{0,12}"], port)
        .prop_map(|(host, port)| pb::NodeIdProto { host, port })
}

// --- checks shared by the properties ---

/// Whatever `input` parses to prints as a string that parses to the same id.
fn check_prints_back<T>(input: &str) -> Result<(), TestCaseError>
where
    T: FromStr + Display + PartialEq + Debug,
{
    if let Ok(id) = input.parse::<T>() {
        let printed = id.to_string();
        prop_assert_eq!(
            printed.parse::<T>().ok(),
            Some(id),
            "{:?} printed {:?}",
            input,
            printed
        );
    }
    Ok(())
}

/// The message converts exactly when both parts are non-negative, and the id prints back.
fn check_application_id(proto: pb::ApplicationIdProto) -> Result<(), TestCaseError> {
    let valid = proto.cluster_timestamp >= 0 && proto.id >= 0;
    match ApplicationId::try_from(proto) {
        Ok(id) => {
            prop_assert!(valid, "{:?} accepted", proto);
            prop_assert_eq!(id.to_string().parse::<ApplicationId>(), Ok(id));
            prop_assert_eq!(pb::ApplicationIdProto::from(id), proto);
        }
        Err(_) => prop_assert!(!valid, "{:?} refused", proto),
    }
    Ok(())
}

fn is_valid_application_id(proto: Option<pb::ApplicationIdProto>) -> bool {
    proto.is_some_and(|app| app.cluster_timestamp >= 0 && app.id >= 0)
}

fn check_application_attempt_id(proto: pb::ApplicationAttemptIdProto) -> Result<(), TestCaseError> {
    let valid = is_valid_application_id(proto.application_id) && proto.attempt_id >= 0;
    match ApplicationAttemptId::try_from(proto) {
        Ok(id) => {
            prop_assert!(valid, "{:?} accepted", proto);
            prop_assert_eq!(id.to_string().parse::<ApplicationAttemptId>(), Ok(id));
            prop_assert_eq!(pb::ApplicationAttemptIdProto::from(id), proto);
        }
        Err(_) => prop_assert!(!valid, "{:?} refused", proto),
    }
    Ok(())
}

fn check_container_id(proto: pb::ContainerIdProto) -> Result<(), TestCaseError> {
    let attempt = proto.app_attempt_id;
    let attempt_valid = attempt.is_some_and(|attempt| {
        is_valid_application_id(attempt.application_id) && attempt.attempt_id >= 0
    });
    let app_id_agrees = proto.app_id.is_none()
        || (is_valid_application_id(proto.app_id)
            && proto.app_id == attempt.and_then(|attempt| attempt.application_id));
    let valid = attempt_valid && app_id_agrees && proto.id >= 0;
    match ContainerId::try_from(proto) {
        Ok(id) => {
            prop_assert!(valid, "{:?} accepted", proto);
            prop_assert_eq!(id.container_id(), proto.id);
            prop_assert_eq!(id.to_string().parse::<ContainerId>(), Ok(id));
            prop_assert_eq!(
                ContainerId::try_from(pb::ContainerIdProto::from(id)),
                Ok(id)
            );
        }
        Err(_) => prop_assert!(!valid, "{:?} refused", proto),
    }
    Ok(())
}

fn check_node_id(proto: pb::NodeIdProto) -> Result<(), TestCaseError> {
    let valid =
        !proto.host.is_empty() && !proto.host.contains(':') && u16::try_from(proto.port).is_ok();
    match NodeId::try_from(proto.clone()) {
        Ok(id) => {
            prop_assert!(valid, "{:?} accepted", proto);
            prop_assert_eq!(id.to_string().parse::<NodeId>(), Ok(id.clone()));
            prop_assert_eq!(pb::NodeIdProto::from(id), proto);
        }
        Err(_) => prop_assert!(!valid, "{:?} refused", proto),
    }
    Ok(())
}

// --- requests as a server receives them ---

/// The ids a decoded request carries, which a server turns into domain types.
#[derive(Default)]
struct CarriedIds {
    applications: Vec<pb::ApplicationIdProto>,
    attempts: Vec<pb::ApplicationAttemptIdProto>,
    containers: Vec<pb::ContainerIdProto>,
    nodes: Vec<pb::NodeIdProto>,
}

impl CarriedIds {
    fn check(self) -> Result<(), TestCaseError> {
        self.applications
            .into_iter()
            .try_for_each(check_application_id)?;
        self.attempts
            .into_iter()
            .try_for_each(check_application_attempt_id)?;
        self.containers
            .into_iter()
            .try_for_each(check_container_id)?;
        self.nodes.into_iter().try_for_each(check_node_id)
    }
}

/// A request message: a well-formed encoding of it with every id field set, and how a server
/// decodes bytes as it and finds the ids inside.
struct Request {
    name: &'static str,
    sample: Vec<u8>,
    decode: fn(&[u8]) -> Result<CarriedIds, prost::DecodeError>,
}

fn sample_attempt() -> ApplicationAttemptId {
    ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 7), 1)
}

fn sample_container() -> pb::ContainerIdProto {
    match ContainerId::new(sample_attempt(), 17, 2) {
        Ok(id) => id.into(),
        Err(e) => panic!("valid container id refused: {e}"),
    }
}

fn sample_node() -> pb::NodeIdProto {
    NodeId::new("nm1.example.com", 8041).into()
}

fn sample_token() -> pb::TokenProto {
    pb::TokenProto {
        identifier: vec![10, 4, 8, 1, 16, 2],
        password: vec![0xA5; 32],
        kind: "ContainerToken".to_owned(),
        service: "nm1.example.com:8041".to_owned(),
    }
}

/// ApplicationClientProtocol, ApplicationMasterProtocol, ResourceTracker and
/// ContainerManagementProtocol requests that carry ids.
fn requests() -> Vec<Request> {
    let app = pb::ApplicationIdProto::from(sample_attempt().application_id);
    vec![
        Request {
            name: "KillApplicationRequestProto",
            sample: pb::KillApplicationRequestProto {
                application_id: Some(app),
                diagnostics: "killed by alice".to_owned(),
            }
            .encode_to_vec(),
            decode: |bytes| {
                let request = pb::KillApplicationRequestProto::decode(bytes)?;
                Ok(CarriedIds {
                    applications: request.application_id.into_iter().collect(),
                    ..CarriedIds::default()
                })
            },
        },
        Request {
            name: "FailApplicationAttemptRequestProto",
            sample: pb::FailApplicationAttemptRequestProto {
                application_attempt_id: Some(sample_attempt().into()),
            }
            .encode_to_vec(),
            decode: |bytes| {
                let request = pb::FailApplicationAttemptRequestProto::decode(bytes)?;
                Ok(CarriedIds {
                    attempts: request.application_attempt_id.into_iter().collect(),
                    ..CarriedIds::default()
                })
            },
        },
        Request {
            name: "AllocateRequestProto",
            sample: pb::AllocateRequestProto {
                ask: vec![pb::ResourceRequestProto {
                    resource_name: "*".to_owned(),
                    num_containers: 2,
                    ..pb::ResourceRequestProto::default()
                }],
                release: vec![sample_container()],
                response_id: 3,
                progress: 0.5,
                update_requests: vec![pb::UpdateContainerRequestProto {
                    container_version: Some(1),
                    container_id: Some(sample_container()),
                    ..pb::UpdateContainerRequestProto::default()
                }],
                ..pb::AllocateRequestProto::default()
            }
            .encode_to_vec(),
            decode: |bytes| {
                let request = pb::AllocateRequestProto::decode(bytes)?;
                let updated = request.update_requests.into_iter();
                Ok(CarriedIds {
                    containers: (request.release.into_iter())
                        .chain(updated.filter_map(|update| update.container_id))
                        .collect(),
                    ..CarriedIds::default()
                })
            },
        },
        Request {
            name: "RegisterNodeManagerRequestProto",
            sample: pb::RegisterNodeManagerRequestProto {
                node_id: Some(sample_node()),
                http_port: 8042,
                container_statuses: vec![pb::NmContainerStatusProto {
                    container_id: Some(sample_container()),
                    container_exit_status: Some(-105),
                    ..pb::NmContainerStatusProto::default()
                }],
                running_applications: vec![app],
                ..pb::RegisterNodeManagerRequestProto::default()
            }
            .encode_to_vec(),
            decode: |bytes| {
                let request = pb::RegisterNodeManagerRequestProto::decode(bytes)?;
                let statuses = request.container_statuses.into_iter();
                Ok(CarriedIds {
                    applications: request.running_applications,
                    containers: statuses.filter_map(|status| status.container_id).collect(),
                    nodes: request.node_id.into_iter().collect(),
                    ..CarriedIds::default()
                })
            },
        },
        Request {
            name: "NodeHeartbeatRequestProto",
            sample: pb::NodeHeartbeatRequestProto {
                node_status: Some(pb::NodeStatusProto {
                    node_id: Some(sample_node()),
                    response_id: 41,
                    containers_statuses: vec![pb::ContainerStatusProto {
                        container_id: Some(sample_container()),
                        exit_status: Some(0),
                        ..pb::ContainerStatusProto::default()
                    }],
                    keep_alive_applications: vec![app],
                    ..pb::NodeStatusProto::default()
                }),
                last_known_container_token_master_key: Some(pb::MasterKeyProto {
                    key_id: 4,
                    bytes: vec![7; 32],
                }),
                ..pb::NodeHeartbeatRequestProto::default()
            }
            .encode_to_vec(),
            decode: |bytes| {
                let request = pb::NodeHeartbeatRequestProto::decode(bytes)?;
                let Some(status) = request.node_status else {
                    return Ok(CarriedIds::default());
                };
                let statuses = status.containers_statuses.into_iter();
                Ok(CarriedIds {
                    applications: status.keep_alive_applications,
                    containers: statuses.filter_map(|status| status.container_id).collect(),
                    nodes: status.node_id.into_iter().collect(),
                    ..CarriedIds::default()
                })
            },
        },
        Request {
            name: "StartContainersRequestProto",
            sample: pb::StartContainersRequestProto {
                start_container_requests: vec![pb::StartContainerRequestProto {
                    container_launch_context: Some(pb::ContainerLaunchContextProto {
                        commands: vec!["sleep 1".to_owned()],
                        ..pb::ContainerLaunchContextProto::default()
                    }),
                    container_token: Some(sample_token()),
                }],
            }
            .encode_to_vec(),
            // The container ids of a start travel inside the token identifier, which the
            // security crate decodes only once the token verifies.
            decode: |bytes| {
                pb::StartContainersRequestProto::decode(bytes)?;
                Ok(CarriedIds::default())
            },
        },
        Request {
            name: "StopContainersRequestProto",
            sample: pb::StopContainersRequestProto {
                container_ids: vec![sample_container(), sample_container()],
            }
            .encode_to_vec(),
            decode: |bytes| {
                let request = pb::StopContainersRequestProto::decode(bytes)?;
                Ok(CarriedIds {
                    containers: request.container_ids,
                    ..CarriedIds::default()
                })
            },
        },
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn id_strings_parse_or_are_refused_and_parsed_ids_print_back(input in id_like_string()) {
        check_prints_back::<ApplicationId>(&input)?;
        check_prints_back::<ApplicationAttemptId>(&input)?;
        check_prints_back::<ContainerId>(&input)?;
        check_prints_back::<NodeId>(&input)?;
        check_prints_back::<LeaderHint>(&input)?;
    }

    #[test]
    fn id_messages_with_any_field_values_convert_exactly_when_valid(
        app in application_id_proto(),
        attempt in application_attempt_id_proto(),
        container in container_id_proto(),
        node in node_id_proto(),
    ) {
        check_application_id(app)?;
        check_application_attempt_id(attempt)?;
        check_container_id(container)?;
        check_node_id(node)?;
    }

    #[test]
    fn request_bytes_decode_or_are_refused_and_the_ids_inside_convert_or_are_refused(
        arbitrary in vec(any::<u8>(), 0..256),
        mutations in mutations(),
    ) {
        for request in requests() {
            let mut mutated = request.sample.clone();
            mutations.iter().for_each(|mutation| mutation.apply(&mut mutated));
            for bytes in [&arbitrary, &mutated] {
                if let Ok(carried) = (request.decode)(bytes) {
                    carried.check().map_err(|failure| {
                        TestCaseError::fail(format!("{} {bytes:?}: {failure}", request.name))
                    })?;
                }
            }
        }
    }

    #[test]
    fn any_bytes_under_a_token_key_read_as_a_token_or_as_malformed(
        bytes in vec(any::<u8>(), 0..128),
        encoded in "[ -~]{0,64}",
    ) {
        let mut metadata = MetadataMap::new();
        metadata.insert_bin(AMRM_TOKEN_METADATA_KEY, MetadataValue::from_bytes(&bytes));
        let presented = PresentedToken::from_metadata(&metadata, AMRM_TOKEN_METADATA_KEY);
        match (pb::TokenProto::decode(bytes.as_slice()), presented) {
            (Ok(expected), PresentedToken::Token(token)) => prop_assert_eq!(token, expected),
            (Err(_), PresentedToken::Malformed { .. }) => {}
            (decoded, presented) => {
                return Err(TestCaseError::fail(format!(
                    "decoding gave {decoded:?} but the call read {presented:?}"
                )));
            }
        }

        // What arrives off the wire is base64 text, which need not be valid base64.
        let mut headers = http::HeaderMap::new();
        let value = http::HeaderValue::from_str(&encoded)
            .map_err(|e| TestCaseError::fail(format!("{encoded:?} is a header value: {e}")))?;
        headers.insert(AMRM_TOKEN_METADATA_KEY, value);
        let presented = PresentedToken::from_metadata(
            &MetadataMap::from_headers(headers),
            AMRM_TOKEN_METADATA_KEY,
        );
        prop_assert!(!matches!(presented, PresentedToken::Missing), "{:?}", encoded);
    }

    #[test]
    fn any_refused_containers_header_reads_as_the_numbers_it_holds(
        value in vec(any::<u8>(), 0..64),
        refused in vec(any::<i64>(), 0..8),
    ) {
        if let Ok(value) = AsciiMetadataValue::try_from(value.as_slice()) {
            let mut metadata = MetadataMap::new();
            metadata.insert(REMOTE_CONTAINERS_REFUSED_HEADER, value);
            let status = Status::with_metadata(tonic::Code::InvalidArgument, "refused", metadata);
            prop_assert!(refused_remote_containers(&status).is_some());
        }
        let status = remote_containers_refused("refused", &refused);
        prop_assert_eq!(refused_remote_containers(&status), Some(refused));
    }
}

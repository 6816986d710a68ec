//! What a start request's launch context and verified container token make of a container:
//! the [`ContainerRecord`] the node stores, queues and launches from.

use yarn_proto::ids::ContainerId;
use yarn_proto::pb;

use super::ContainerRefusal;
use crate::container_scheduler::{ExecutionType, Resources};
use crate::localizer::LocalResource;
use crate::state_store::ContainerRecord;
use crate::token_check::VerifiedContainer;

/// The record of a container about to be accepted: the launch context's commands, environment
/// and tokens (the credentials the container finds in its token file), and from the verified
/// token its user (the application submitter), allocation, execution type and version, plus the
/// identifier's bytes exactly as the RM signed them.
///
/// The local resources are kept as given, by link name; they are checked and localized when
/// the container launches, and a resource that cannot be localized fails that container with
/// the reason (see [`Localizer`](crate::localizer::Localizer)), as in Hadoop.
///
/// # Errors
///
/// [`ContainerRefusal::MissingField`] for a token without a resource, and
/// [`ContainerRefusal::InvalidResource`] for a negative one.
pub(super) fn accepted_record(
    context: &pb::ContainerLaunchContextProto,
    token: &pb::TokenProto,
    verified: &VerifiedContainer,
) -> Result<ContainerRecord, ContainerRefusal> {
    let container_id = verified.container_id;
    let identifier = &verified.identifier;
    Ok(ContainerRecord {
        container_id,
        user: identifier.app_submitter.clone(),
        commands: context.commands.clone(),
        environment: context.environment.clone().into_iter().collect(),
        resources: token_resources(container_id, identifier)?,
        execution_type: ExecutionType::from(identifier.execution_type()),
        token_version: identifier.version,
        container_token_identifier: token.identifier.clone(),
        tokens: context.tokens.clone(),
        local_resources: context
            .local_resources
            .iter()
            .map(|(link, resource)| (link.clone(), LocalResource::from(resource)))
            .collect(),
    })
}

/// The allocation a verified container token grants.
///
/// # Errors
///
/// [`ContainerRefusal::MissingField`] when the identifier has no resource, and
/// [`ContainerRefusal::InvalidResource`] when an amount is negative.
pub(super) fn token_resources(
    container_id: ContainerId,
    identifier: &pb::ContainerTokenIdentifierProto,
) -> Result<Resources, ContainerRefusal> {
    let resource = identifier
        .resource
        .as_ref()
        .ok_or(ContainerRefusal::MissingField {
            message: "ContainerTokenIdentifierProto",
            field: "resource",
        })?;
    Resources::try_from(resource).map_err(|source| ContainerRefusal::InvalidResource {
        container_id,
        source: Box::new(source),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};

    use super::*;
    use crate::localizer::{ResourceType, ResourceVisibility};

    fn container() -> ContainerId {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 1), 1);
        ContainerId::new(attempt, 2, 7).unwrap()
    }

    fn verified(resource: Option<pb::ResourceProto>) -> VerifiedContainer {
        VerifiedContainer {
            identifier: pb::ContainerTokenIdentifierProto {
                container_id: Some(container().into()),
                app_submitter: "alice".to_owned(),
                resource,
                execution_type: pb::ExecutionTypeProto::Opportunistic.into(),
                version: 2,
                ..Default::default()
            },
            container_id: container(),
            expiry_ms: 0,
        }
    }

    #[test]
    fn the_record_takes_the_launch_context_as_given_and_the_rest_from_the_token() {
        let context = pb::ContainerLaunchContextProto {
            commands: vec!["echo".to_owned(), "hi".to_owned()],
            environment: BTreeMap::from([("A".to_owned(), "1".to_owned())]),
            tokens: vec![0x0A, 0x02, 0x01, 0x02],
            local_resources: BTreeMap::from([(
                "__app__.jar".to_owned(),
                pb::LocalResourceProto {
                    resource: "file:/s/__app__.jar".to_owned(),
                    size: 10,
                    timestamp: 1_700_000_000_123,
                    // Unset type and visibility: FILE and APPLICATION, as in YARN.
                    ..Default::default()
                },
            )]),
            ..Default::default()
        };
        let token = pb::TokenProto {
            identifier: vec![9, 9],
            ..Default::default()
        };
        let resource = pb::ResourceProto::from(Resources::new(512, 2));
        let record = accepted_record(&context, &token, &verified(Some(resource))).unwrap();
        assert_eq!(
            record,
            ContainerRecord {
                container_id: container(),
                user: "alice".to_owned(),
                commands: vec!["echo".to_owned(), "hi".to_owned()],
                environment: HashMap::from([("A".to_owned(), "1".to_owned())]),
                resources: Resources::new(512, 2),
                execution_type: ExecutionType::Opportunistic,
                token_version: 2,
                container_token_identifier: vec![9, 9],
                tokens: vec![0x0A, 0x02, 0x01, 0x02],
                local_resources: BTreeMap::from([(
                    "__app__.jar".to_owned(),
                    LocalResource {
                        url: "file:/s/__app__.jar".to_owned(),
                        size: 10,
                        timestamp_ms: 1_700_000_000_123,
                        resource_type: ResourceType::File,
                        visibility: ResourceVisibility::Application,
                        pattern: String::new(),
                    },
                )]),
            }
        );
    }

    #[test]
    fn a_token_without_a_usable_resource_is_refused() {
        let context = pb::ContainerLaunchContextProto::default();
        let token = pb::TokenProto::default();
        let refusal = accepted_record(&context, &token, &verified(None)).unwrap_err();
        assert_eq!(
            refusal.to_string(),
            "ContainerTokenIdentifierProto.resource is required but absent"
        );
        let negative = pb::ResourceProto {
            memory: -5,
            ..Default::default()
        };
        let refusal = accepted_record(&context, &token, &verified(Some(negative))).unwrap_err();
        assert!(
            matches!(refusal, ContainerRefusal::InvalidResource { .. }),
            "{refusal:?}"
        );
        assert!(refusal.to_string().contains("memory is -5"), "{refusal}");
    }
}

//! [`SubmissionContextInfo`]: the body of `POST /ws/v1/cluster/apps`, Hadoop's
//! `application-submission-context` in its JSON form, turned into the client protocol's record.

use std::collections::BTreeMap;

use serde::Deserialize;
use yarn_proto::ids::{ApplicationId, ReservationId};
use yarn_proto::pb;

use super::jaxb_json::{Entries, OneOrMany};
use crate::operations::RmError;

/// Hadoop's JSON submission, the fields yarn-ha honours.
///
/// Every other field of Hadoop's form (`log-aggregation-context`,
/// `am-black-listing-requests`, node-label expressions, `credentials`, ...) is refused by name
/// rather than ignored, since an application that asked for it would run without it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct SubmissionContextInfo {
    application_id: String,
    application_name: Option<String>,
    queue: Option<String>,
    priority: Option<i32>,
    am_container_spec: Option<ContainerLaunchContextInfo>,
    #[serde(rename = "unmanaged-AM")]
    unmanaged_am: Option<bool>,
    cancel_tokens_when_complete: Option<bool>,
    max_app_attempts: Option<i32>,
    resource: Option<ResourceInfo>,
    application_type: Option<String>,
    keep_containers_across_application_attempts: Option<bool>,
    application_tags: Option<Tags>,
    attempt_failures_validity_interval: Option<i64>,
    reservation_id: Option<String>,
}

/// `am-container-spec`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct ContainerLaunchContextInfo {
    local_resources: Option<Entries<LocalResourceInfo>>,
    environment: Option<Entries<String>>,
    commands: Option<Commands>,
}

/// `{"command": "..."}` or `{"command": ["...", ...]}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Commands {
    command: OneOrMany<String>,
}

/// `{"tag": "..."}` or `{"tag": ["...", ...]}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Tags {
    tag: OneOrMany<String>,
}

/// Hadoop's `LocalResourceInfo`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct LocalResourceInfo {
    resource: String,
    #[serde(rename = "type")]
    resource_type: Option<String>,
    visibility: Option<String>,
    size: i64,
    timestamp: i64,
    pattern: Option<String>,
}

/// `{"memory": MB, "vCores": n}`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResourceInfo {
    memory: i64,
    #[serde(rename = "vCores")]
    v_cores: i32,
}

impl SubmissionContextInfo {
    /// Parses a request body.
    ///
    /// # Errors
    ///
    /// [`RmError::InvalidRequest`] saying what does not parse: serde names the field and the
    /// position, and an unknown field by its name.
    pub(crate) fn parse(body: &[u8]) -> Result<Self, RmError> {
        serde_json::from_slice(body).map_err(|err| {
            RmError::invalid(
                "application-submission-context",
                format!("the body is not an application-submission-context: {err}"),
            )
        })
    }

    /// The client protocol's submission context.
    ///
    /// # Errors
    ///
    /// [`RmError::InvalidRequest`] for an application id that does not parse, a local resource
    /// whose size or time is not positive or whose type or visibility Hadoop does not have.
    pub(crate) fn into_proto(self) -> Result<pb::ApplicationSubmissionContextProto, RmError> {
        let application_id: ApplicationId = self.application_id.parse().map_err(|err| {
            RmError::invalid(
                "application-id",
                format!(
                    "Could not parse application id {}: {err}",
                    self.application_id
                ),
            )
        })?;
        let reservation_id = self
            .reservation_id
            .map(|id| {
                id.parse::<ReservationId>().map_err(|err| {
                    RmError::invalid(
                        "reservation-id",
                        format!("Could not parse reservation id {id}: {err}"),
                    )
                })
            })
            .transpose()?;
        let am_container_spec = self
            .am_container_spec
            .map(ContainerLaunchContextInfo::into_proto)
            .transpose()?;
        Ok(pb::ApplicationSubmissionContextProto {
            application_id: Some(application_id.into()),
            application_name: self.application_name,
            queue: self.queue,
            priority: self.priority.map(|priority| pb::PriorityProto { priority }),
            am_container_spec,
            cancel_tokens_when_complete: self.cancel_tokens_when_complete,
            unmanaged_am: self.unmanaged_am.unwrap_or(false),
            max_app_attempts: self.max_app_attempts.unwrap_or(0),
            resource: self.resource.map(|resource| pb::ResourceProto {
                memory: resource.memory,
                virtual_cores: resource.v_cores,
                ..Default::default()
            }),
            application_type: self.application_type,
            keep_containers_across_application_attempts: self
                .keep_containers_across_application_attempts
                .unwrap_or(false),
            application_tags: self
                .application_tags
                .map(|tags| tags.tag.into_vec())
                .unwrap_or_default(),
            attempt_failures_validity_interval: self.attempt_failures_validity_interval,
            reservation_id: reservation_id.map(Into::into),
            ..Default::default()
        })
    }
}

impl ContainerLaunchContextInfo {
    fn into_proto(self) -> Result<pb::ContainerLaunchContextProto, RmError> {
        let local_resources = self
            .local_resources
            .map(Entries::into_pairs)
            .unwrap_or_default()
            .into_iter()
            .map(|(key, value)| Ok((key.clone(), value.into_proto(&key)?)))
            .collect::<Result<BTreeMap<_, _>, RmError>>()?;
        Ok(pb::ContainerLaunchContextProto {
            local_resources,
            environment: self
                .environment
                .map(Entries::into_pairs)
                .unwrap_or_default()
                .into_iter()
                .collect(),
            commands: self
                .commands
                .map(|commands| commands.command.into_vec())
                .unwrap_or_default(),
            ..Default::default()
        })
    }
}

impl LocalResourceInfo {
    fn into_proto(self, name: &str) -> Result<pb::LocalResourceProto, RmError> {
        let field = "am-container-spec.local-resources";
        if self.size <= 0 || self.timestamp <= 0 {
            return Err(RmError::invalid(
                field,
                format!(
                    "local resource {name}: size ({}) and timestamp ({}) must be greater than 0",
                    self.size, self.timestamp
                ),
            ));
        }
        let resource_type = match self.resource_type.as_deref().unwrap_or("FILE") {
            "FILE" => pb::LocalResourceTypeProto::File,
            "ARCHIVE" => pb::LocalResourceTypeProto::Archive,
            "PATTERN" => pb::LocalResourceTypeProto::Pattern,
            other => {
                return Err(RmError::invalid(
                    field,
                    format!(
                        "local resource {name}: type {other:?} is not FILE, ARCHIVE or PATTERN"
                    ),
                ));
            }
        };
        let visibility = match self.visibility.as_deref().unwrap_or("APPLICATION") {
            "PUBLIC" => pb::LocalResourceVisibilityProto::Public,
            "PRIVATE" => pb::LocalResourceVisibilityProto::Private,
            "APPLICATION" => pb::LocalResourceVisibilityProto::Application,
            other => {
                return Err(RmError::invalid(
                    field,
                    format!(
                        "local resource {name}: visibility {other:?} is not PUBLIC, PRIVATE or \
                         APPLICATION"
                    ),
                ));
            }
        };
        Ok(pb::LocalResourceProto {
            resource: self.resource,
            size: self.size,
            timestamp: self.timestamp,
            r#type: resource_type.into(),
            visibility: visibility.into(),
            pattern: self.pattern.unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hadoop's documented example, trimmed of the fields yarn-ha refuses.
    const HADOOPS_EXAMPLE: &str = r#"{
        "application-id": "application_1404203615263_0001",
        "application-name": "test",
        "am-container-spec": {
            "local-resources": {"entry": [{
                "key": "AppMaster.jar",
                "value": {"resource": "hdfs://hdfs-namenode:9000/user/testuser/DistributedShell/demo-app/AppMaster.jar",
                          "type": "FILE", "visibility": "APPLICATION", "size": 43004, "timestamp": 1405452071209}
            }]},
            "commands": {"command": "{{JAVA_HOME}}/bin/java -Xmx10m ApplicationMaster 1><LOG_DIR>/AppMaster.stdout"},
            "environment": {"entry": [{"key": "CLASSPATH", "value": "{{CLASSPATH}}<CPS>./*"}]}
        },
        "unmanaged-AM": false,
        "max-app-attempts": 2,
        "resource": {"memory": 1024, "vCores": 1},
        "application-type": "YARN",
        "keep-containers-across-application-attempts": false,
        "application-tags": {"tag": ["nightly", "etl"]},
        "queue": "default",
        "priority": 3
    }"#;

    #[test]
    fn hadoops_example_becomes_the_client_protocols_record() {
        let context = SubmissionContextInfo::parse(HADOOPS_EXAMPLE.as_bytes())
            .unwrap()
            .into_proto()
            .unwrap();
        assert_eq!(
            ApplicationId::try_from(context.application_id.unwrap()).unwrap(),
            ApplicationId::new(1_404_203_615_263, 1)
        );
        assert_eq!(context.application_name.as_deref(), Some("test"));
        assert_eq!(context.max_app_attempts, 2);
        assert_eq!(context.priority, Some(pb::PriorityProto { priority: 3 }));
        assert_eq!(context.application_tags, ["nightly", "etl"]);
        let resource = context.resource.unwrap();
        assert_eq!((resource.memory, resource.virtual_cores), (1024, 1));
        let spec = context.am_container_spec.unwrap();
        assert_eq!(spec.commands.len(), 1);
        assert_eq!(spec.environment["CLASSPATH"], "{{CLASSPATH}}<CPS>./*");
        let jar = &spec.local_resources["AppMaster.jar"];
        assert_eq!((jar.size, jar.timestamp), (43_004, 1_405_452_071_209));
        assert_eq!(jar.r#type(), pb::LocalResourceTypeProto::File);
    }

    #[test]
    fn a_field_yarn_ha_does_not_honour_is_refused_by_name() {
        let body = r#"{"application-id": "application_1_0001", "log-aggregation-context": {}}"#;
        let err = SubmissionContextInfo::parse(body.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("log-aggregation-context"), "{err}");
    }

    #[test]
    fn a_reservation_id_is_carried_and_a_bad_one_named() {
        let body = r#"{"application-id": "application_1_0001",
                       "reservation-id": "reservation_1_0007"}"#;
        let context = SubmissionContextInfo::parse(body.as_bytes())
            .unwrap()
            .into_proto()
            .unwrap();
        assert_eq!(
            context.reservation_id,
            Some(ReservationId::new(1, 7).into())
        );
        let bad = r#"{"application-id": "application_1_0001", "reservation-id": "r1"}"#;
        let err = SubmissionContextInfo::parse(bad.as_bytes())
            .unwrap()
            .into_proto()
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("Could not parse reservation id r1"),
            "{err}"
        );
    }

    #[test]
    fn bad_ids_and_resources_are_refused_naming_them() {
        let bad_id = r#"{"application-id": "app_1"}"#;
        let err = SubmissionContextInfo::parse(bad_id.as_bytes())
            .unwrap()
            .into_proto()
            .unwrap_err();
        assert!(
            matches!(
                &err,
                RmError::InvalidRequest {
                    field: "application-id",
                    ..
                }
            ),
            "{err:?}"
        );
        let zero_size = r#"{"application-id": "application_1_0001", "am-container-spec":
            {"local-resources": {"entry": {"key": "a", "value": {"resource": "x", "size": 0, "timestamp": 1}}}}}"#;
        let err = SubmissionContextInfo::parse(zero_size.as_bytes())
            .unwrap()
            .into_proto()
            .unwrap_err();
        assert!(err.to_string().contains("size (0)"), "{err}");
    }
}

//! Application lifetimes at the client door (YARN's LIFETIME timeout): the lifetime a
//! submission asks for, and `updateApplicationTimeouts`.
//!
//! The deadline a submission gets is resolved against its leaf queue by
//! [`ClientOperations::submit_application`] and committed with the submission; the leader's
//! lifetime monitor kills the application once it has passed.

use yarn_proto::expiry_time::{format_expiry_time, parse_expiry_time};
use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;
use yarn_scheduler::{ApplicationLifetime, deadline_ms};
use yarn_security::{Caller, now_ms};

use super::RmError;
use super::client_operations::{ClientOperations, application_id, user_name};
use crate::state_machine::{CommandV1, RmCommand, RmResponse};

/// The submission field lifetimes are asked for in.
pub(super) const TIMEOUTS_FIELD: &str = "application_submission_context.application_timeouts";

/// The lifetime in seconds a submission asks for; `None` when it asks for none. When it names
/// LIFETIME more than once, the last one counts, as in Hadoop's map.
///
/// # Errors
///
/// Hadoop's message for a lifetime of 0 or less, and a refusal of a timeout without a type.
pub(super) fn requested_lifetime(
    context: &pb::ApplicationSubmissionContextProto,
) -> Result<Option<u64>, String> {
    let mut requested = None;
    for timeout in &context.application_timeouts {
        if timeout.application_timeout_type() != pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
        {
            return Err(format!(
                "{TIMEOUTS_FIELD} holds a timeout of type {}: the only type is LIFETIME",
                timeout.application_timeout_type
            ));
        }
        let secs = u64::try_from(timeout.timeout)
            .ok()
            .filter(|&secs| secs > 0)
            .ok_or_else(|| {
                format!(
                    "Invalid application timeout, value={} for type=LIFETIME",
                    timeout.timeout
                )
            })?;
        requested = Some(secs);
    }
    Ok(requested)
}

/// The lifetime in seconds of a submission asking for `requested`, in a leaf with `queue`'s
/// lifetimes: `None` for the queue when it is not known yet (an unknown queue is rejected at
/// admission, but a refresh may create it first), in which case the application keeps what
/// it asked for, as Hadoop does.
pub(super) fn granted_lifetime(
    queue: Option<ApplicationLifetime>,
    requested: Option<u64>,
) -> Option<u64> {
    match queue {
        Some(lifetime) => lifetime.granted(requested),
        None => requested,
    }
}

/// The command that stores a submission: with its deadline when it has a lifetime, and the
/// queues it creates (parents first) when it creates any.
pub(super) fn submission_command(
    id: ApplicationId,
    application: crate::state_machine::ApplicationRecord,
    lifetime_secs: Option<u64>,
    created: Vec<String>,
) -> RmCommand {
    let cluster_timestamp_ms = id.cluster_timestamp;
    let deadline_ms = lifetime_secs.map(|secs| deadline_ms(application.submit_time_ms, secs));
    RmCommand::V1(match deadline_ms {
        _ if !created.is_empty() => CommandV1::SubmitApplicationCreatingQueues {
            cluster_timestamp_ms,
            application,
            deadline_ms,
            created,
        },
        Some(deadline_ms) => CommandV1::SubmitApplicationWithLifetime {
            cluster_timestamp_ms,
            deadline_ms,
            application,
        },
        None => CommandV1::SubmitApplication {
            cluster_timestamp_ms,
            application,
        },
    })
}

impl ClientOperations {
    /// Moves the end of an application's lifetime (YARN's `updateApplicationTimeouts`): to
    /// the requested time, in the future, but no later than its submission plus its queue's
    /// maximum lifetime. Answers with the time in force: the caller's own string unless it was
    /// capped. An application that has ended keeps what it had, and the request is answered as
    /// given, as Hadoop does.
    pub(crate) async fn update_application_timeouts(
        &self,
        caller: &Caller,
        request: pb::UpdateApplicationTimeoutsRequestProto,
    ) -> Result<pb::UpdateApplicationTimeoutsResponseProto, RmError> {
        const RPC: &str = "UpdateApplicationTimeouts";
        const FIELD: &str = "application_timeouts";
        let user = user_name(caller);
        let id = application_id(request.application_id, RPC)?;
        self.proposer.read_barrier().await?;
        let (state, queue, submit_time_ms) =
            self.application(id, |app| (app.state, app.queue.clone(), app.submit_time_ms))?;
        self.check_modify_access(&user, "MODIFY_APP", id).await?;
        let Some(timeout) = request.application_timeouts.last() else {
            return Err(RmError::invalid(
                FIELD,
                "At least one ApplicationTimeoutType should be configured for updating timeouts.",
            ));
        };
        if timeout.application_timeout_type() != pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime
        {
            return Err(RmError::invalid(
                FIELD,
                format!(
                    "{RPC}: a timeout of type {} cannot be updated: the only type is LIFETIME",
                    timeout.application_timeout_type
                ),
            ));
        }
        if state.is_final() {
            return Ok(timeouts_response(timeout.expire_time.clone()));
        }
        let requested = parse_expiry_time(&timeout.expire_time)
            .map_err(|err| RmError::invalid(FIELD, err.to_string()))?;
        let now = now_ms();
        if requested < now {
            return Err(RmError::invalid(
                FIELD,
                format!(
                    "Expire time is less than current time, current-time={} expire-time={}",
                    format_expiry_time(now),
                    format_expiry_time(requested)
                ),
            ));
        }
        let leadership = self.proposer.gate.require_leader()?;
        let nodes = leadership.nodes(|tracker| tracker.schedulable());
        // Reconciled, so that a refresh committed since the last pass caps the update.
        let lifetime = leadership
            .scheduler()
            .with_reconciled(&self.state, &self.queues, &nodes, |leader| {
                leader
                    .scheduler()
                    .configuration()
                    .resolve(&queue)
                    .map(|conf| conf.application_lifetime)
            })
            .await
            .map_err(|err| {
                RmError::unavailable(format!(
                    "{RPC}: the leader cannot check {id}'s queue, its queue configuration does \
                     not load: {err}"
                ))
            })?
            .map_err(|_| {
                RmError::unavailable(format!(
                    "{RPC}: {id}'s queue {queue} is not in the leader's scheduler yet; retry"
                ))
            })?;
        let deadline = lifetime
            .latest_deadline_ms(submit_time_ms)
            .map_or(requested, |latest| requested.min(latest));
        let command = RmCommand::V1(CommandV1::UpdateApplicationLifetime {
            application_seq: id.id,
            deadline_ms: deadline,
        });
        match self.proposer.propose(command).await? {
            // The time as the caller wrote it unless capped, as Hadoop answers: a client
            // compares it with what it sent to tell whether the queue's maximum applied.
            RmResponse::ApplicationLifetimeUpdated if deadline == requested => {
                Ok(timeouts_response(timeout.expire_time.clone()))
            }
            RmResponse::ApplicationLifetimeUpdated => {
                Ok(timeouts_response(format_expiry_time(deadline)))
            }
            RmResponse::ApplicationAlreadyFinal { .. } => {
                Ok(timeouts_response(timeout.expire_time.clone()))
            }
            RmResponse::UnknownApplication { .. } => Err(RmError::ApplicationNotFound { id }),
            other => Err(RmError::internal(format!(
                "updating the lifetime of {id} produced {other:?}"
            ))),
        }
    }
}

fn timeouts_response(expire_time: String) -> pb::UpdateApplicationTimeoutsResponseProto {
    pb::UpdateApplicationTimeoutsResponseProto {
        application_timeouts: vec![pb::ApplicationUpdateTimeoutMapProto {
            application_timeout_type: pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime.into(),
            expire_time,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(timeouts: &[(pb::ApplicationTimeoutTypeProto, i64)]) -> Result<Option<u64>, String> {
        requested_lifetime(&pb::ApplicationSubmissionContextProto {
            application_timeouts: timeouts
                .iter()
                .map(|&(kind, timeout)| pb::ApplicationTimeoutMapProto {
                    application_timeout_type: kind.into(),
                    timeout,
                })
                .collect(),
            ..Default::default()
        })
    }

    #[test]
    fn a_submission_asks_for_a_positive_lifetime_or_none() {
        use pb::ApplicationTimeoutTypeProto::{
            AppTimeoutLifetime, ApplicationTimeoutTypeUnspecified as Unspecified,
        };
        assert_eq!(asking(&[]), Ok(None));
        assert_eq!(asking(&[(AppTimeoutLifetime, 60)]), Ok(Some(60)));
        assert_eq!(
            asking(&[(AppTimeoutLifetime, 60), (AppTimeoutLifetime, 30)]),
            Ok(Some(30))
        );
        assert_eq!(
            asking(&[(AppTimeoutLifetime, 0)]),
            Err("Invalid application timeout, value=0 for type=LIFETIME".to_owned())
        );
        assert_eq!(
            asking(&[(AppTimeoutLifetime, -5)]),
            Err("Invalid application timeout, value=-5 for type=LIFETIME".to_owned())
        );
        let err = asking(&[(Unspecified, 60)]).unwrap_err();
        assert!(err.contains("the only type is LIFETIME"), "{err}");
    }

    #[test]
    fn without_its_queue_known_a_submission_keeps_the_lifetime_it_asked_for() {
        assert_eq!(granted_lifetime(None, Some(60)), Some(60));
        assert_eq!(granted_lifetime(None, None), None);
        let open = ApplicationLifetime::default();
        assert_eq!(granted_lifetime(Some(open), Some(60)), Some(60));
    }

    #[test]
    fn a_submission_with_a_lifetime_is_stored_with_its_deadline() {
        let id = ApplicationId::new(1_000, 3);
        let record = crate::state_machine::ApplicationRecord {
            sequence: 3,
            submit_time_ms: 5_000,
            ..Default::default()
        };
        match submission_command(id, record.clone(), Some(60), Vec::new()) {
            RmCommand::V1(CommandV1::SubmitApplicationWithLifetime {
                cluster_timestamp_ms: 1_000,
                deadline_ms: 65_000,
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            submission_command(id, record, None, Vec::new()),
            RmCommand::V1(CommandV1::SubmitApplication { .. })
        ));
    }
}

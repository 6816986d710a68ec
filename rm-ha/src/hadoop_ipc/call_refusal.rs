//! The one mapping of [`RmError`] to the Hadoop exceptions the ResourceManager's Hadoop IPC
//! answers with.

use yarn_ipc::{CallError, ExceptionClass};

use crate::operations::RmError;

/// Each error becomes the exception a Hadoop client acts on, with the error's message:
/// - [`RmError::NotLeader`]: `StandbyException`, on which Hadoop's failover proxy provider
///   tries the next ResourceManager (nothing was executed here);
/// - [`RmError::Unavailable`] and [`RmError::TimedOut`]: `RetriableException`, which Hadoop's
///   retry policy repeats on the same ResourceManager; every write of the RM is idempotent;
/// - the others: YARN's exception for the case (`ApplicationNotFoundException`,
///   `ApplicationMasterNotRegisteredException`, `AccessControlException`, `InvalidToken`, ...)
///   or the plain `YarnException`, see the match below.
impl From<RmError> for CallError {
    fn from(err: RmError) -> Self {
        let class = match &err {
            RmError::NotLeader(_) => ExceptionClass::StandbyException,
            RmError::ApplicationNotFound { .. } => ExceptionClass::ApplicationNotFoundException,
            RmError::AttemptNotFound { .. } => ExceptionClass::ApplicationAttemptNotFoundException,
            RmError::ContainerNotFound { .. } => ExceptionClass::ContainerNotFoundException,
            RmError::InvalidRequest { field, .. } if field.starts_with("ask") => {
                ExceptionClass::InvalidResourceRequestException
            }
            RmError::InvalidRequest { field, .. } if field.starts_with("release") => {
                ExceptionClass::InvalidContainerReleaseException
            }
            RmError::AccessDenied { .. } => ExceptionClass::AccessControlException,
            RmError::Unauthenticated { .. } => ExceptionClass::InvalidToken,
            RmError::NotRegistered { .. } => {
                ExceptionClass::ApplicationMasterNotRegisteredException
            }
            RmError::Unavailable { .. } | RmError::TimedOut { .. } => {
                ExceptionClass::RetriableException
            }
            RmError::NotFound { .. }
            | RmError::InvalidRequest { .. }
            | RmError::PreconditionFailed { .. }
            | RmError::Conflict { .. }
            | RmError::Exhausted { .. }
            | RmError::Unsupported { .. }
            | RmError::ContainersRefused { .. }
            | RmError::Internal { .. } => ExceptionClass::YarnException,
        };
        CallError::Application {
            class,
            message: err.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;

    use super::*;
    use crate::operations::NotLeader;

    fn class_of(err: RmError) -> &'static str {
        match CallError::from(err) {
            CallError::Application { class, .. } => class.java_name(),
            other => panic!("not an application failure: {other:?}"),
        }
    }

    #[test]
    fn a_follower_answers_standby_so_hadoops_failover_moves_on() {
        let err = RmError::NotLeader(NotLeader {
            replica: "rm2".to_owned(),
            service: "client",
            leader: Some("rm1".to_owned()),
            hint: None,
        });
        assert_eq!(class_of(err), "org.apache.hadoop.ipc.StandbyException");
    }

    #[test]
    fn yarns_own_exceptions_are_kept_where_yarn_has_them() {
        let missing = RmError::ApplicationNotFound {
            id: ApplicationId {
                cluster_timestamp: 1,
                id: 7,
            },
        };
        assert_eq!(
            class_of(missing),
            "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException"
        );
        assert_eq!(
            class_of(RmError::NotRegistered {
                message: "register again".to_owned()
            }),
            "org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException"
        );
        assert_eq!(
            class_of(RmError::invalid("ask", "too many")),
            "org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException"
        );
        assert_eq!(
            class_of(RmError::AccessDenied {
                user: "eve".to_owned(),
                right: "SUBMIT_APPLICATIONS".to_owned(),
                message: "no".to_owned(),
            }),
            "org.apache.hadoop.security.AccessControlException"
        );
        assert_eq!(
            class_of(RmError::unavailable("no quorum")),
            "org.apache.hadoop.ipc.RetriableException"
        );
        assert_eq!(
            class_of(RmError::precondition("finished")),
            "org.apache.hadoop.yarn.exceptions.YarnException"
        );
    }

    #[test]
    fn the_message_is_the_errors_own() {
        let err = RmError::precondition("application_1_0001 already finished");
        match CallError::from(err) {
            CallError::Application { message, .. } => {
                assert_eq!(message, "application_1_0001 already finished");
            }
            other => panic!("{other:?}"),
        }
    }
}

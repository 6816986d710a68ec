//! Applications past admission on the leader: the AM sessions of the scheduler protocol, the
//! tokens handed to AMs, and the allocate responses built from the replicated state.
//!
//! ```text
//! AM ──allocate──▶ AmOperations ─ TokenIssuer::verify_amrm ─▶ attempt
//!                    │ AmSession::check(response_id)   (fresh | resend | invalid)
//!                    │ asks/releases ─▶ SchedulerCell ─▶ scheduling loop ─▶ AllocateContainers
//!                    ▼
//!                  allocate_response::build(state, session)  committed containers only
//! ```

pub mod allocate_response;
mod am_credentials;
mod am_launch;
mod am_session;
mod application_access;
mod application_counts;
mod caller_rights;
mod cluster_overview;
pub mod container_updates;
pub mod diagnostics_limit;
mod lifetime_timeout;
mod queue_applications;
mod queue_preemptions;
pub mod remote_containers;
pub mod reports;
mod submission_limits;
mod token_issuer;

pub use am_credentials::{AM_TOKENS_FIELD, submitted_credentials};
pub use am_launch::{APP_SUBMIT_TIME_ENV, AmLaunch, MAX_APP_ATTEMPTS_ENV, pending_launches};
pub use am_session::{AmSession, AttemptNews, ResponseIdCheck};
pub use application_access::{ApplicationAccess, ApplicationAccessType};
pub use application_counts::ApplicationCounts;
pub use caller_rights::CallerRights;
pub use cluster_overview::ClusterOverview;
pub use diagnostics_limit::DiagnosticsLimit;
pub use lifetime_timeout::LifetimeTimeout;
pub use queue_applications::QueueApplications;
pub use queue_preemptions::{PreemptionFigures, QueuePreemptions};
pub use submission_limits::{
    APPLICATION_TYPE_LENGTH, MAX_CONTEXT_BYTES_LIMIT, MAX_NAME_BYTES, SubmissionLimits,
    SubmissionRefusal, recorded_application_type,
};
pub use token_issuer::{
    AMRM_TOKEN_SERVICE, AmrmTokenRefusal, TokenIssuer, execution_type, resource,
};

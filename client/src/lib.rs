//! yarn-ha client libraries: how users, ApplicationMasters and NodeManagers reach the
//! ResourceManager group, and the CLI commands built on them.
//!
//! May depend on `proto`, `conf` and `security`; never on a daemon crate, so the NodeManager and
//! the AMRMProxy can use it to talk to the RM.
//!
//! # Main types
//!
//! - [`RmClient`]: calls one RM service ([`RmService`]) with failover across the replicas of
//!   `yarn.resourcemanager.ha.rm-ids`, following leader hints, over mutual TLS, with one lazily
//!   connected channel cached per address (Hadoop's `ConfiguredRMFailoverProxyProvider` plus
//!   `FailoverOnNetworkExceptionRetry`, improved by the hint a follower returns).
//! - [`RmClientConfig`]: its typed settings from `yarn.client.failover-*`, `yarn.tls.*` and the
//!   member list.
//! - [`RetryPolicy`] with [`Failure`], [`Idempotency`] and [`CallHistory`]: the pure decision
//!   whether and where a failed call is resent; [`RmFailoverTargets`]: the pure rotation.
//! - [`rmadmin`]: `yarn-ha rmadmin` (HA state, health, leadership transfer, Raft membership,
//!   refreshes), with its output formatting as pure functions.
//! - [`Error`]: the crate's one error type.
//!
//! # A call
//!
//! ```text
//!  RmClient::call(idempotency, op)
//!    loop:
//!      target = RmFailoverTargets::current()       cached Channel per address (lazy, mTLS)
//!      op(channel) under the call deadline ──ok──▶ return the message
//!          │ Status
//!          ▼
//!      Failure::classify(status)   NotLeader{hint} | NotSent | MaybeExecuted | Final
//!          ▼
//!      RetryPolicy::decide(history, failure, idempotency, jitter)
//!          ├─ Retry{delay: 0, Hint}        fresh hint to a member: go there now
//!          ├─ Retry{delay: d, Hint|Next}   pause in [d/2, d], d = min(base·2^n, max)
//!          └─ GiveUp(Final | OutcomeUnknown | AttemptsExhausted) ──▶ Error naming the
//!                                          replica, its address, attempts and last status
//! ```
//!
//! `AMRMClient`, `NMClient`, `YarnClient` and the user commands arrive with the applications
//! work.

mod error;
mod failure;
pub mod queue;
mod retry_policy;
mod rm_client;
mod rm_client_config;
mod rm_failover_targets;
mod rm_service;
pub mod rmadmin;

pub use error::Error;
pub use failure::Failure;
pub use retry_policy::{
    CallHistory, GiveUpReason, Idempotency, RetryDecision, RetryPolicy, RetryTarget,
};
pub use rm_client::RmClient;
pub use rm_client_config::{DEFAULT_CALL_TIMEOUT, RmClientConfig};
pub use rm_failover_targets::RmFailoverTargets;
pub use rm_service::RmService;

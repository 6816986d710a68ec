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
//! - [`AmRmClient`]: an ApplicationMaster's `AMRMClient` (register, allocate with the outstanding
//!   ask table, release, blacklist, finish), deduplicating containers and resyncing after a
//!   failover; [`AmRmHeartbeat`] runs it as `AMRMClientAsync` with [`AmRmEvent`]s;
//!   [`NmClient`] starts, stops and queries containers on NodeManagers with the NM tokens of
//!   [`NmTokenCache`]; [`read_amrm_token_from_env`] finds the AMRMToken. [`AskKey`] and
//!   [`answered_updates`] are the allocate bookkeeping an AMRMProxy's relay shares with it;
//!   [`ContainerKey`] and [`describe_container_id`] key and name containers, however malformed
//!   their ids, for the ApplicationMasters built on it.
//! - [`YarnClient`]: YARN's client of the application protocol (submit, reports, kill, nodes,
//!   attempts, containers); [`application_cli`]: `yarn-ha application|node|applicationattempt|
//!   container` with their output as pure functions.
//! - [`rmadmin`]: `yarn-ha rmadmin` (HA state, health, leadership transfer, Raft membership,
//!   refreshes), with its output formatting as pure functions.
//! - [`top`]: `yarn-ha top`, Hadoop's `yarn top`: the figures one refresh fetches, and the
//!   screens, sorting and keys as pure functions and types.
//! - [`Error`]: the crate's one error type.
//!
//! Whatever the commands print that users, ApplicationMasters or servers chose (names, queues,
//! diagnostics, server messages in errors) goes through one escaping function,
//! [`escape_for_terminal`], so that it cannot act on the operator's terminal.
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
//!      Failure::classify(status)   NotLeader{hint} | NotSent | MaybeExecuted | Refused | Final
//!          ▼
//!      RetryPolicy::decide(history, failure, idempotency, jitter)
//!          ├─ Retry{delay: 0, Hint}        fresh hint to a member: go there now
//!          ├─ Retry{delay: d, Hint|Next}   pause in [d/2, d], d = min(base·2^n, max)
//!          └─ GiveUp(Final | OutcomeUnknown | AttemptsExhausted) ──▶ Error naming the
//!                                          replica, its address, attempts and last status
//! ```

mod allocate_outcome;
mod am_rm_client;
mod am_rm_heartbeat;
mod am_rm_session;
pub mod application_cli;
mod ask_key;
mod blacklist;
mod container_key;
mod credentials;
mod error;
mod failure;
mod nm_client;
mod nm_token_cache;
mod outstanding_asks;
mod pending_releases;
mod pending_updates;
pub mod queue;
pub mod reservation;
mod retry_policy;
mod rm_client;
mod rm_client_config;
mod rm_failover_targets;
mod rm_service;
pub mod rmadmin;
mod terminal_text;
pub mod top;
mod yarn_client;

pub use allocate_outcome::AllocateOutcome;
pub use am_rm_client::{AmRmClient, DEFAULT_FINISH_ATTEMPTS, DEFAULT_FINISH_PAUSE};
pub use am_rm_heartbeat::{AmRmEvent, AmRmHeartbeat};
pub use am_rm_session::AmRmSession;
pub use ask_key::AskKey;
pub use container_key::{ContainerKey, describe_container_id};
pub use credentials::{amrm_token_from_credentials, read_amrm_token_from_env};
pub use error::Error;
pub use failure::Failure;
pub use nm_client::NmClient;
pub use nm_token_cache::NmTokenCache;
pub use pending_updates::answered_updates;
pub use retry_policy::{
    CallHistory, GiveUpReason, Idempotency, RetryDecision, RetryPolicy, RetryTarget,
};
pub use rm_client::RmClient;
pub use rm_client_config::{AMRM_PROXY_ID, DEFAULT_CALL_TIMEOUT, RmClientConfig};
pub use rm_failover_targets::RmFailoverTargets;
pub use rm_service::RmService;
pub use terminal_text::escape_for_terminal;
pub use yarn_client::{
    ApplicationFilter, DEFAULT_POLL_INTERVAL, KillOutcome, NewApplication, YarnClient,
    is_final_application_state,
};

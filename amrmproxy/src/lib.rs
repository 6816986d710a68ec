//! The AMRMProxy: a per-application chain of interceptors between an ApplicationMaster and the
//! ResourceManager, hosted by every NodeManager (Hadoop's `AMRMProxyService`).
//!
//! May depend on `proto`, `conf`, `security`, `opportunistic` and `client` (for the RM client
//! with failover); never on `rm-ha` or `nodemanager`: the NodeManager hosts the proxy, not the
//! other way round.
//!
//! # How the chain works
//!
//! ```text
//!  AM ──ApplicationMasterProtocol + local AMRMToken──▶ AmrmProxyService (NM's TLS listener)
//!        authenticate: ProxyTokenSecretManager::validate ─▶ attempt
//!        AmrmProxy::with_chain(attempt)   one call per application at a time
//!          InterceptorChain
//!            [distributed-scheduler] ─▶ [throttle] ─▶ ... ─▶ [default | federation | ...]
//!             each gets the request and a Next handle        last: talks to RM(s) with the
//!             on the interceptors after it                    RM AMRMToken of the context
//!        record (RM token, interceptor states) ─▶ ProxyStateStore, if changed
//!  AM ◀── response: RM token removed, a rolled local token added
//! ```
//!
//! - The NodeManager builds an [`InterceptorRegistry`] (the built-ins
//!   [`DefaultRequestInterceptor`], [`ThrottleInterceptor`], [`DistributedScheduler`], plus any
//!   it registers) and an [`InterceptorPipeline`] from
//!   `yarn.nodemanager.amrmproxy.interceptor-class.pipeline` at start-up; configuration
//!   mistakes (unknown or repeated names, an empty pipeline, a last interceptor that does not
//!   talk to an RM) fail the start, never an application.
//! - When it starts an AM container it calls [`AmrmProxy::init_application`] with the RM-issued
//!   AMRMToken and puts the returned local token in the container's credentials instead.
//! - Every interceptor implements [`RequestInterceptor`]: `init` once with the
//!   [`ApplicationContext`] (attempt, user, the replaceable RM AMRMToken, the [`NodeContext`]),
//!   then `register`, `allocate`, `finish` and the distributed-scheduling variants, each with a
//!   [`Next`] handle; `state` and `recover` carry its state across NodeManager restarts;
//!   `shutdown` when the application ends.
//!
//! # Guarantees
//!
//! - The AM never sees an RM AMRMToken: it only ever holds and presents a local one, and RM
//!   tokens presented to the proxy are refused.
//! - Calls of one application run one at a time through its chain; at most
//!   `yarn.nodemanager.amrmproxy.client.thread-count` run at once on the node.
//! - An RM failover is hidden from the AM: the default interceptor registers again and re-sends
//!   everything outstanding, and the AM's response ids carry on.
//! - Locally placed OPPORTUNISTIC containers are indistinguishable from the RM's (same token
//!   format and keys), never reuse an id, and are reported to the RM exactly once.
//! - What the AM last saw is in the store before the answer leaves, so a NodeManager restart
//!   ([`AmrmProxy::recover`]) resumes every chain; the local keys roll on Hadoop's schedule
//!   with the current and next key both valid during the roll ([`ProxyTokenSecretManager`]).
//!
//! # Adding a federation interceptor
//!
//! A federation interceptor spreads one application over several RM clusters, as Hadoop's
//! `FederationInterceptor` does; the crate's federation test runs the following against two
//! real ResourceManager clusters in one process.
//!
//! 1. Implement [`RequestInterceptor`] and register it as [`InterceptorRole::Intermediate`],
//!    named just before `default`:
//!    `yarn.nodemanager.amrmproxy.interceptor-class.pipeline = throttle,federation,default`
//!    (with distributed scheduling on, the distributed scheduler still goes first). The home
//!    cluster, which runs the application's own attempt, is reached through `next`, so
//!    [`DefaultRequestInterceptor`] keeps hiding its failovers and rolling its AMRMToken.
//! 2. In `register`, pass the registration on, then on each secondary cluster submit an
//!    unmanaged application (`unmanaged_am = true`) as the application's user through a
//!    [`YarnClient`](yarn_client::YarnClient), and poll its report for the AMRMToken: the RM
//!    hands it to the owner only, and only until the unmanaged AM registers. Build that AM's
//!    own chain from a one-name [`InterceptorPipeline`] (`default`, over an
//!    [`RmClient`](yarn_client::RmClient) of the secondary's scheduler addresses) and an
//!    [`ApplicationContext`] of its attempt and token, and register through it; it gets the
//!    same failover hiding and token rolling.
//! 3. In `allocate`, split the asks by a policy (locality, weights): the home part goes to
//!    `next` with the AM's response id, each secondary part through its chain with that
//!    chain's own response id. Merge allocated containers, completed statuses and NM tokens
//!    into the home answer, and remember which cluster allocated each container (its id
//!    carries that cluster's timestamp) so releases go back to it.
//! 4. In `finish`, finish every unmanaged AM with the AM's request, then pass it on.
//! 5. Keep each unmanaged attempt, its token and its chain's state in the interceptor's
//!    [`state`](RequestInterceptor::state), so [`recover`](RequestInterceptor::recover) can
//!    rebuild the chains after a NodeManager restart: the RM does not hand the token out again.
//!
//! An interceptor that talks to every cluster itself, the home one included, registers as
//! [`InterceptorRole::RmFacing`] and is named last in place of `default`.

mod am_rm_relay;
mod amrm_proxy;
mod amrm_proxy_dispatcher;
mod amrm_proxy_service;
mod application_context;
mod config;
mod default_request_interceptor;
mod distributed_scheduler;
mod error;
mod interceptor_chain;
mod interceptor_pipeline;
mod interceptor_registry;
mod ipc_refusal;
mod memory_proxy_state_store;
mod node_context;
mod opportunistic_context;
mod proxy_state_store;
mod proxy_token_secret_manager;
mod request_interceptor;
mod status;
mod stored_state;
mod throttle_interceptor;
mod token_bucket;

pub use amrm_proxy::{AmrmProxy, RecoveryReport};
pub use amrm_proxy_dispatcher::AmrmProxyDispatcher;
pub use amrm_proxy_service::AmrmProxyService;
pub use application_context::ApplicationContext;
pub use config::{ProxyConfig, ThrottleConfig};
pub use default_request_interceptor::DefaultRequestInterceptor;
pub use distributed_scheduler::DistributedScheduler;
pub use error::{AskProblem, BoxError, Error};
pub use interceptor_chain::InterceptorChain;
pub use interceptor_pipeline::InterceptorPipeline;
pub use interceptor_registry::{
    DEFAULT_INTERCEPTOR, DISTRIBUTED_SCHEDULER, InterceptorFactory, InterceptorRegistry,
    InterceptorRole, THROTTLE_INTERCEPTOR,
};
pub use memory_proxy_state_store::MemoryProxyStateStore;
pub use node_context::NodeContext;
pub use proxy_state_store::{
    ApplicationProxyState, ProxyMasterKeys, ProxyStateStore, StoredProxyState,
};
pub use proxy_token_secret_manager::ProxyTokenSecretManager;
pub use request_interceptor::{BoxFuture, Next, RequestInterceptor};
pub use stored_state::FORMAT_VERSION;
pub use throttle_interceptor::ThrottleInterceptor;
pub use token_bucket::{Admission, TokenBucket};

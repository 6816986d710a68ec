//! The one error type of the AMRMProxy crate.

use yarn_security::TokenKind;

/// A boxed error from code outside this crate: a [`ProxyStateStore`](crate::ProxyStateStore)
/// implementation or an interceptor registered by the NodeManager.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can go wrong in the AMRMProxy: building the interceptor pipeline,
/// authenticating an ApplicationMaster, relaying its calls to the ResourceManager, placing
/// OPPORTUNISTIC containers locally, throttling, and persisting state.
///
/// Every message names what was wrong and where (the key and value, the attempt, the
/// interceptor, the RM replica, the stored record). The AMRMProxy service turns these into gRPC
/// statuses in one place (`status.rs`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // --- Pipeline (interceptor_registry.rs, interceptor_pipeline.rs) ---
    /// A pipeline names an interceptor nobody registered.
    #[error(
        "{key} = {value:?}: unknown interceptor {name:?}; expected one of {}",
        known.join(", ")
    )]
    UnknownInterceptor {
        /// The pipeline's configuration key.
        key: &'static str,
        /// The pipeline as configured.
        value: String,
        /// The unknown name.
        name: String,
        /// Every registered name.
        known: Vec<String>,
    },
    /// A pipeline without interceptors.
    #[error("{key} is empty: expected at least one interceptor, the last one talking to an RM")]
    EmptyPipeline {
        /// The pipeline's configuration key.
        key: &'static str,
    },
    /// A pipeline whose last interceptor does not talk to a ResourceManager, so requests would
    /// fall off the end of the chain.
    #[error(
        "{key} = {value:?}: the last interceptor {last:?} does not talk to a ResourceManager; \
         end the pipeline with one that does ({})",
        rm_facing.join(", ")
    )]
    LastInterceptorNotRmFacing {
        /// The pipeline's configuration key.
        key: &'static str,
        /// The pipeline as configured.
        value: String,
        /// Its last name.
        last: String,
        /// The registered names that talk to an RM.
        rm_facing: Vec<String>,
    },
    /// An interceptor that talks to a ResourceManager placed before the end of the pipeline:
    /// the interceptors after it would never see a request.
    #[error(
        "{key} = {value:?}: {name:?} talks to a ResourceManager and must be the last interceptor"
    )]
    RmFacingInterceptorNotLast {
        /// The pipeline's configuration key.
        key: &'static str,
        /// The pipeline as configured.
        value: String,
        /// The misplaced name.
        name: String,
    },
    /// A pipeline naming one interceptor twice.
    #[error("{key} = {value:?}: interceptor {name:?} is listed twice")]
    DuplicateInterceptor {
        /// The pipeline's configuration key.
        key: &'static str,
        /// The pipeline as configured.
        value: String,
        /// The repeated name.
        name: String,
    },
    /// A name that cannot appear in a comma-separated pipeline or prefix a state key.
    #[error(
        "invalid interceptor name {name:?}: expected a non-empty name without ',', '/' or \
         whitespace"
    )]
    InvalidInterceptorName {
        /// The name.
        name: String,
    },
    /// A second factory registered under a name already taken.
    #[error("an interceptor named {name:?} is already registered")]
    InterceptorAlreadyRegistered {
        /// The name.
        name: String,
    },

    // --- The chain (request_interceptor.rs, interceptor_chain.rs) ---
    /// An interceptor called the next one, but it is the last.
    #[error("{operation}: no interceptor after the last one of the chain of {attempt}")]
    NoNextInterceptor {
        /// The call that fell off the chain.
        operation: &'static str,
        /// The attempt whose chain it is.
        attempt: String,
    },
    /// An interceptor registered by the NodeManager failed in its own way.
    #[error("interceptor {interceptor:?} of {attempt}: {source}")]
    Interceptor {
        /// The interceptor's registered name.
        interceptor: String,
        /// The attempt whose chain it is.
        attempt: String,
        /// Its error.
        #[source]
        source: BoxError,
    },

    // --- Authentication of ApplicationMasters (amrm_proxy_service.rs,
    //     proxy_token_secret_manager.rs) ---
    /// A call without an AMRMToken in its metadata.
    #[error("{operation}: no AMRMToken under the metadata key {key}")]
    MissingAmrmToken {
        /// The refused call.
        operation: &'static str,
        /// The metadata key looked at.
        key: &'static str,
    },
    /// A call whose AMRMToken metadata does not decode.
    #[error("{operation}: the AMRMToken under {key} is malformed: {reason}")]
    MalformedAmrmToken {
        /// The refused call.
        operation: &'static str,
        /// The metadata key looked at.
        key: &'static str,
        /// Why it does not decode.
        reason: String,
    },
    /// A token of the wrong kind, or one issued by a ResourceManager rather than this proxy.
    #[error(
        "the presented token (kind {kind}, service {service:?}) is not an AMRMToken of the \
         AMRMProxy at {expected_service}: ApplicationMasters must present the local AMRMToken \
         from their credentials, never the ResourceManager's"
    )]
    NotALocalAmrmToken {
        /// The presented token's kind.
        kind: String,
        /// The presented token's service.
        service: String,
        /// This proxy's address, which its tokens carry as service.
        expected_service: String,
    },
    /// A local AMRMToken that does not verify: forged, tampered with, or signed under a key
    /// that is no longer held.
    #[error("the AMRMToken does not verify: {source}")]
    InvalidAmrmToken {
        /// The security crate's reason.
        #[source]
        source: Box<yarn_security::Error>,
    },
    /// A verified AMRMToken whose identifier names no usable application attempt.
    #[error("the AMRMToken names no valid application attempt: {reason}")]
    AmrmTokenWithoutAttempt {
        /// What is wrong with the attempt id.
        reason: String,
    },
    /// A token for an attempt the proxy runs no chain for (finished, or never started here).
    #[error(
        "application attempt {attempt} is not known to this AMRMProxy (finished, superseded by \
         a newer attempt, or never started on this node)"
    )]
    UnknownApplicationAttempt {
        /// The attempt the token names.
        attempt: String,
    },
    /// The RM-issued token handed to `init_application` is not an AMRMToken.
    #[error(
        "the ResourceManager token of {attempt} has kind {found:?}: expected {}",
        TokenKind::AmRm
    )]
    RmTokenNotAmrm {
        /// The attempt being started.
        attempt: String,
        /// The token's kind.
        found: String,
    },

    // --- Relaying to the ResourceManager (default_request_interceptor.rs) ---
    /// A call to the ResourceManager group failed.
    #[error("{operation} of {attempt} at the ResourceManager: {source}")]
    Rm {
        /// The RPC.
        operation: &'static str,
        /// The attempt it was made for.
        attempt: String,
        /// The client's error, naming the replica, address, attempts and last status.
        #[source]
        source: Box<yarn_client::Error>,
    },
    /// The ResourceManager lost the attempt's registration and registering it again failed.
    #[error(
        "{attempt} must register again after a ResourceManager failover, which failed: {source}"
    )]
    Reregistration {
        /// The attempt.
        attempt: String,
        /// Why the registration failed.
        #[source]
        source: Box<Error>,
    },
    /// A ResourceManager response lacks a field the proxy needs.
    #[error("{operation} of {attempt}: the ResourceManager's response has no {field}")]
    IncompleteRmResponse {
        /// The RPC.
        operation: &'static str,
        /// The attempt.
        attempt: String,
        /// The missing field.
        field: &'static str,
    },

    // --- Local opportunistic scheduling (distributed_scheduler.rs, local_opportunistic.rs) ---
    /// An OPPORTUNISTIC ask the proxy cannot take: the allocator refused the ask table.
    #[error("OPPORTUNISTIC asks of {attempt} refused: {source}")]
    OpportunisticAsksRefused {
        /// The attempt.
        attempt: String,
        /// The allocator's reason (a key without a "*" ask, mismatched sizes, ...).
        #[source]
        source: Box<yarn_opportunistic::Error>,
    },
    /// An ask that is malformed or larger than the RM allows.
    #[error("ask[{index}] of {attempt}: {problem}")]
    InvalidAsk {
        /// The attempt.
        attempt: String,
        /// The ask's position in the allocate request.
        index: usize,
        /// What is wrong with it.
        problem: AskProblem,
    },
    /// The per-application container ids counted down from `container_id_start` reached 0.
    #[error(
        "no container id left for {attempt}: ids count down from container_id_start \
         {container_id_start} and would become negative"
    )]
    ContainerIdsExhausted {
        /// The attempt.
        attempt: String,
        /// The start the RM gave.
        container_id_start: i64,
    },

    // --- Throttling (throttle_interceptor.rs) ---
    /// An allocate call over the application's rate that would have to wait too long.
    #[error(
        "allocate of {attempt} refused: over the AMRMProxy limit of {rate_per_second} calls per \
         second (burst {burst}); the next call is allowed in {retry_after_ms} ms, more than the \
         longest delay of {max_delay_ms} ms"
    )]
    Throttled {
        /// The attempt.
        attempt: String,
        /// The configured rate.
        rate_per_second: f64,
        /// The configured burst.
        burst: u32,
        /// When a call would be let through.
        retry_after_ms: u64,
        /// The configured longest delay.
        max_delay_ms: u64,
    },

    // --- Persistence (proxy_state_store.rs, stored_state.rs, amrm_proxy.rs) ---
    /// The state store failed.
    #[error("AMRMProxy state store: {operation} {subject}: {source}")]
    StateStore {
        /// What was being done (store, remove, load).
        operation: &'static str,
        /// What it was done to: an application id, or the master keys.
        subject: String,
        /// The store's error.
        #[source]
        source: BoxError,
    },
    /// A stored record written in a format this binary does not read.
    #[error("stored AMRMProxy {record} has format version {found}; this binary reads {expected}")]
    UnsupportedStateVersion {
        /// Which record.
        record: &'static str,
        /// The version found.
        found: u8,
        /// The version this binary writes and reads.
        expected: u8,
    },
    /// A stored record that does not decode.
    #[error("stored AMRMProxy {record} is corrupt: {reason}")]
    CorruptState {
        /// Which record.
        record: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The local master keys could not be restored or rolled.
    #[error("AMRMProxy master keys: {source}")]
    MasterKeys {
        /// The security crate's reason.
        #[source]
        source: Box<yarn_security::Error>,
    },
}

/// What is wrong with one ask of an allocate request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskProblem {
    /// No capability.
    #[error("it has no capability")]
    MissingCapability,
    /// A negative memory or vcore count.
    #[error("its capability <memory:{memory}, vCores:{vcores}> is negative")]
    NegativeCapability {
        /// Asked memory, MB.
        memory: i64,
        /// Asked vcores.
        vcores: i32,
    },
    /// A negative container count.
    #[error("it asks for {count} containers; the count cannot be negative")]
    NegativeCount {
        /// The count.
        count: i32,
    },
    /// More than the maximum container size the RM announced at registration.
    #[error(
        "its capability <memory:{memory}, vCores:{vcores}> exceeds the maximum allocation \
         <memory:{max_memory}, vCores:{max_vcores}>"
    )]
    AboveMaximum {
        /// Asked memory, MB.
        memory: i64,
        /// Asked vcores.
        vcores: i32,
        /// Maximum memory, MB.
        max_memory: i64,
        /// Maximum vcores.
        max_vcores: i32,
    },
}

impl Error {
    /// Whether the error refuses the caller's AMRMToken (missing, malformed, not the proxy's,
    /// forged, without an attempt, or of an attempt the proxy does not serve): the AM cannot
    /// fix it by calling again.
    pub(crate) fn is_authentication(&self) -> bool {
        matches!(
            self,
            Error::MissingAmrmToken { .. }
                | Error::MalformedAmrmToken { .. }
                | Error::NotALocalAmrmToken { .. }
                | Error::InvalidAmrmToken { .. }
                | Error::AmrmTokenWithoutAttempt { .. }
                | Error::UnknownApplicationAttempt { .. }
        )
    }
}

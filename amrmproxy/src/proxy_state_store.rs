//! [`ProxyStateStore`]: where the AMRMProxy keeps what must survive a NodeManager restart, and
//! the records it keeps there.

use std::collections::BTreeMap;
use std::fmt;

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId};
use yarn_proto::pb;
use yarn_security::{MasterKey, NextMasterKey};

use crate::BoxError;

/// The NodeManager state store as the AMRMProxy sees it: one opaque record per application and
/// one for the local master keys (Hadoop keeps them under `AMRMProxy/` in the NM's LevelDB).
///
/// The proxy encodes and decodes the records itself ([`ApplicationProxyState::encode`],
/// [`ProxyMasterKeys::encode`]), so an implementation only stores bytes under a key. Calls are
/// synchronous and short; an implementation must make a put durable before it returns, as far
/// as its engine allows, since the proxy relies on it after a crash. Errors are the
/// implementation's own, boxed; the proxy wraps them in [`Error::StateStore`](crate::Error)
/// naming the operation and the application.
pub trait ProxyStateStore: Send + Sync {
    /// Stores `record` as `application`'s, replacing any earlier one.
    ///
    /// # Errors
    ///
    /// The store's failure.
    fn put_application(&self, application: ApplicationId, record: Vec<u8>) -> Result<(), BoxError>;

    /// Removes `application`'s record; removing a missing one succeeds.
    ///
    /// # Errors
    ///
    /// The store's failure.
    fn remove_application(&self, application: ApplicationId) -> Result<(), BoxError>;

    /// Stores `record` as the proxy's master keys, replacing the earlier one.
    ///
    /// # Errors
    ///
    /// The store's failure.
    fn put_master_keys(&self, record: Vec<u8>) -> Result<(), BoxError>;

    /// Everything stored.
    ///
    /// # Errors
    ///
    /// The store's failure.
    fn load(&self) -> Result<StoredProxyState, BoxError>;
}

/// Everything a [`ProxyStateStore`] holds, as raw records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredProxyState {
    /// The encoded [`ProxyMasterKeys`], if stored.
    pub master_keys: Option<Vec<u8>>,
    /// Each application's encoded [`ApplicationProxyState`].
    pub applications: BTreeMap<ApplicationId, Vec<u8>>,
}

/// The master keys of the proxy's local AMRMTokens and their rolling times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyMasterKeys {
    /// The key that validates (and, without a next key, signs) local tokens.
    pub current: MasterKey,
    /// When it became current, in ms since the Unix epoch.
    pub current_activated_at_ms: i64,
    /// The next key, while a roll is in progress.
    pub next: Option<NextMasterKey>,
}

/// What the proxy persists for one application: enough to rebuild its chain after a restart.
#[derive(Clone, PartialEq)]
pub struct ApplicationProxyState {
    /// The attempt the chain serves.
    pub attempt: ApplicationAttemptId,
    /// The user who submitted the application.
    pub user: String,
    /// The newest AMRMToken the RM issued for the attempt.
    pub rm_token: pb::TokenProto,
    /// The chain's [`state`](crate::InterceptorChain::state).
    pub interceptor_state: BTreeMap<String, Vec<u8>>,
}

impl fmt::Debug for ApplicationProxyState {
    /// Leaves the RM token's password out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApplicationProxyState")
            .field("attempt", &self.attempt.to_string())
            .field("user", &self.user)
            .field("rm_token_kind", &self.rm_token.kind)
            .field(
                "interceptor_state_keys",
                &self.interceptor_state.keys().collect::<Vec<_>>(),
            )
            .finish()
    }
}

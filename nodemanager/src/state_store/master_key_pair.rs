//! [`MasterKeyPair`]: the master keys a NodeManager checks one kind of token with.

use yarn_security::MasterKey;

/// The key the RM signs one kind of token with now, and the one before it, which still
/// validates tokens signed just before the roll; the pair a NodeManager's
/// [`TokenSecretManager::with_previous`](yarn_security::TokenSecretManager::with_previous)
/// is rebuilt from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MasterKeyPair {
    /// The key the RM signs with now.
    pub current: MasterKey,
    /// The key before it, if the NodeManager has seen a roll.
    pub previous: Option<MasterKey>,
}

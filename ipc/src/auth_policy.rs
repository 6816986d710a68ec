//! Which authentication methods a server enables.

use std::fmt;
use std::sync::Arc;

use crate::{AuthMethod, SaslMechanism};

/// The authentication methods a server enables (Hadoop's `enabledAuthMethods`): SASL
/// mechanisms first, in order of preference, then SIMPLE when it is allowed.
///
/// A client that opens with an auth protocol the policy does not cover is refused at once with
/// a FATAL `AccessControlException`: `SIMPLE authentication is not enabled.  Available:[TOKEN]`
/// when SIMPLE is off, as Hadoop answers, and `SASL authentication is not enabled.
/// Available:[SIMPLE]` when no SASL mechanism is on. The second is yarn-ha's: a SIMPLE-only
/// Hadoop server would answer the client's SASL NEGOTIATE with SUCCESS and let it continue
/// unauthenticated; yarn-ha never downgrades a client that came to prove a token.
#[derive(Clone)]
pub struct AuthPolicy {
    simple: bool,
    sasl: Vec<Arc<dyn SaslMechanism>>,
}

impl AuthPolicy {
    /// SIMPLE only: callers are whoever they claim to be. For trusted networks, and only when
    /// the operator asked for it.
    pub fn simple_only() -> Self {
        AuthPolicy {
            simple: true,
            sasl: Vec::new(),
        }
    }

    /// The given SASL mechanisms, in order of preference, and SIMPLE if `simple` is set.
    pub fn new(sasl: Vec<Arc<dyn SaslMechanism>>, simple: bool) -> Self {
        AuthPolicy { simple, sasl }
    }

    /// Whether SIMPLE is enabled.
    pub fn allows_simple(&self) -> bool {
        self.simple
    }

    /// Whether any SASL mechanism is enabled.
    pub fn allows_sasl(&self) -> bool {
        !self.sasl.is_empty()
    }

    /// The SASL mechanisms, in order of preference.
    pub fn sasl_mechanisms(&self) -> &[Arc<dyn SaslMechanism>] {
        &self.sasl
    }

    /// The mechanism for `method`, if enabled.
    pub fn sasl_mechanism(&self, method: AuthMethod) -> Option<&Arc<dyn SaslMechanism>> {
        self.sasl
            .iter()
            .find(|mechanism| mechanism.method() == method)
    }

    /// The enabled methods as Hadoop lists them in refusals: `[TOKEN, SIMPLE]`.
    pub fn enabled_list(&self) -> String {
        let mut names: Vec<&str> = self.sasl.iter().map(|m| m.method().name()).collect();
        if self.simple {
            names.push(AuthMethod::Simple.name());
        }
        format!("[{}]", names.join(", "))
    }
}

impl fmt::Debug for AuthPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthPolicy")
            .field("enabled", &self.enabled_list())
            .finish()
    }
}

//! [`AmSessions`]: the registered attempts of the current leadership, shared by the
//! ApplicationMaster service and the AM liveness monitor.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use yarn_proto::ids::ApplicationAttemptId;

use super::AmSession;

/// The leader's [`AmSession`]s, tagged with the epoch they belong to.
///
/// Guarantee: sessions never outlive their leadership. The first use under a new epoch finds
/// none, so every AM's next allocate is refused as not registered and the AM re-registers and
/// re-sends its outstanding asks: the only way a new leader learns them.
#[derive(Debug, Clone, Default)]
pub struct AmSessions {
    inner: Arc<Mutex<(u64, BTreeMap<ApplicationAttemptId, AmSession>)>>,
}

impl AmSessions {
    /// Runs `f` on the sessions of `epoch`, dropping them first if they belonged to another
    /// epoch. The lock is held only for `f`, which must not block.
    pub fn with<R>(
        &self,
        epoch: u64,
        f: impl FnOnce(&mut BTreeMap<ApplicationAttemptId, AmSession>) -> R,
    ) -> R {
        // Sessions are replaced or edited field by field; a panic elsewhere leaves at worst a
        // session the AM re-registers.
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.0 != epoch {
            *guard = (epoch, BTreeMap::new());
        }
        f(&mut guard.1)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use yarn_proto::ids::ApplicationId;

    use super::*;

    #[test]
    fn a_new_epoch_starts_without_sessions() {
        let sessions = AmSessions::default();
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1, 1), 1);
        sessions.with(3, |all| all.insert(attempt, AmSession::new(Instant::now())));
        assert!(sessions.with(3, |all| all.contains_key(&attempt)));
        assert!(!sessions.with(4, |all| all.contains_key(&attempt)));
        assert!(!sessions.with(3, |all| all.contains_key(&attempt)));
    }
}

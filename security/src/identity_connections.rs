//! How many connections each certificate identity, and the anonymous clients together, hold
//! open to one listener.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::Caller;

/// The open connections of one listener, counted per identity, each identity up to a limit.
/// Clients without a certificate ([`Caller::Anonymous`], on web listeners that admit them)
/// count as one identity together: they cannot prove they are different callers.
///
/// An admitted connection holds a [`ConnectionSlot`] for as long as it lives; dropping the slot
/// (with the connection, when the server is done with it) lets the identity connect again.
/// Identities without connections take no memory.
#[derive(Debug)]
pub(crate) struct IdentityConnections {
    limit: usize,
    // A std mutex: every section is one map update, and none is held across an await.
    open: Arc<Mutex<HashMap<Caller, usize>>>,
}

impl IdentityConnections {
    /// No connections yet; each identity may hold `limit`.
    pub(crate) fn new(limit: usize) -> Self {
        IdentityConnections {
            limit,
            open: Arc::default(),
        }
    }

    /// How many connections each identity may hold.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// A slot for one more connection of `caller`, or `None` when it already holds
    /// [`limit`](Self::limit).
    pub(crate) fn try_admit(&self, caller: &Caller) -> Option<ConnectionSlot> {
        let mut open = lock(&self.open);
        let held = open.get(caller).copied().unwrap_or(0);
        if held >= self.limit {
            return None;
        }
        open.insert(caller.clone(), held + 1);
        Some(ConnectionSlot {
            open: Arc::clone(&self.open),
            caller: caller.clone(),
        })
    }
}

/// One admitted connection's place in its identity's count; dropping it gives the place back.
#[derive(Debug)]
pub(crate) struct ConnectionSlot {
    open: Arc<Mutex<HashMap<Caller, usize>>>,
    caller: Caller,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut open = lock(&self.open);
        if let Some(held) = open.get_mut(&self.caller) {
            *held -= 1;
            if *held == 0 {
                open.remove(&self.caller);
            }
        }
    }
}

/// The counts stay consistent even if a holder panicked (each update is a single statement), so
/// a poisoned lock is still usable.
fn lock(open: &Mutex<HashMap<Caller, usize>>) -> MutexGuard<'_, HashMap<Caller, usize>> {
    open.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PeerIdentity, Role};

    fn node(name: &str) -> Caller {
        Caller::Peer(PeerIdentity {
            role: Role::NodeManager,
            name: name.to_owned(),
        })
    }

    #[test]
    fn each_identity_is_admitted_up_to_the_limit_independently() {
        let connections = IdentityConnections::new(2);
        let h1 = [
            connections.try_admit(&node("h1")),
            connections.try_admit(&node("h1")),
        ];
        assert!(h1.iter().all(Option::is_some));
        assert!(connections.try_admit(&node("h1")).is_none());
        // Same name, other role: another identity.
        let user_h1 = Caller::Peer(PeerIdentity {
            role: Role::User,
            name: "h1".to_owned(),
        });
        assert!(connections.try_admit(&user_h1).is_some());
        assert!(connections.try_admit(&node("h2")).is_some());
    }

    #[test]
    fn anonymous_clients_share_one_limit_apart_from_every_identity() {
        let connections = IdentityConnections::new(2);
        let anonymous = [
            connections.try_admit(&Caller::Anonymous),
            connections.try_admit(&Caller::Anonymous),
        ];
        assert!(anonymous.iter().all(Option::is_some));
        assert!(connections.try_admit(&Caller::Anonymous).is_none());
        assert!(connections.try_admit(&node("h1")).is_some());
    }

    #[test]
    fn dropping_a_slot_admits_one_more_and_an_idle_identity_is_forgotten() {
        let connections = IdentityConnections::new(1);
        let first = connections.try_admit(&node("h1")).unwrap();
        assert!(connections.try_admit(&node("h1")).is_none());
        drop(first);
        let second = connections.try_admit(&node("h1")).unwrap();
        assert!(connections.try_admit(&node("h1")).is_none());
        drop(second);
        assert!(lock(&connections.open).is_empty());
    }
}

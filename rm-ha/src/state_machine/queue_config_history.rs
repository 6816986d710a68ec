//! [`QueueConfigHistory`]: the queue configurations a change replaced, kept by version so that
//! one can be read and restored (`yarn.scheduler.configuration.max.version`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{RmResponse, RmState};

/// Earlier versions of the queue configuration, newest last. Postcard encodes an empty
/// history in one byte, which is how state format 10 reads as format 11.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueConfigHistory {
    versions: BTreeMap<u64, BTreeMap<String, String>>,
}

impl QueueConfigHistory {
    /// The properties of `version`, if it is kept.
    pub fn get(&self, version: u64) -> Option<&BTreeMap<String, String>> {
        self.versions.get(&version)
    }

    /// The versions kept, oldest first.
    pub fn versions(&self) -> impl Iterator<Item = u64> + '_ {
        self.versions.keys().copied()
    }

    /// Keeps `properties` as `version`, then only the newest `keep` versions.
    fn record(&mut self, version: u64, properties: BTreeMap<String, String>, keep: u32) {
        self.versions.insert(version, properties);
        let keep = usize::try_from(keep).unwrap_or(usize::MAX);
        while self.versions.len() > keep {
            self.versions.pop_first();
        }
    }
}

impl RmState {
    /// Applies [`super::CommandV1::SetQueueConfiguration`] (`keep` `None`: nothing kept, the rule of
    /// the entries written before history existed) or
    /// [`super::CommandV1::SetQueueConfigurationKeeping`]: compare-and-set on the version, the
    /// configuration it replaces kept in the history, trimmed to `keep` versions.
    pub(super) fn set_queue_configuration(
        &mut self,
        expected: u64,
        properties: &BTreeMap<String, String>,
        keep: Option<u32>,
    ) -> RmResponse {
        if expected != self.queue_config_version {
            return RmResponse::QueueConfigVersionRejected {
                expected,
                actual: self.queue_config_version,
            };
        }
        let replaced = std::mem::replace(&mut self.queue_config, properties.clone());
        if let Some(keep) = keep
            && self.queue_config_version > 0
        {
            self.queue_config_history
                .record(self.queue_config_version, replaced, keep);
        }
        self.queue_config_version += 1;
        RmResponse::QueueConfigVersionSet {
            version: self.queue_config_version,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state_machine::{CommandV1, RmCommand};

    fn set(expected: u64, capacity: &str, keep: Option<u32>) -> RmCommand {
        let properties = BTreeMap::from([("k".to_owned(), capacity.to_owned())]);
        RmCommand::V1(match keep {
            Some(keep) => CommandV1::SetQueueConfigurationKeeping {
                expected,
                properties,
                keep,
            },
            None => CommandV1::SetQueueConfiguration {
                expected,
                properties,
            },
        })
    }

    #[test]
    fn each_change_keeps_what_it_replaced_up_to_the_bound() {
        let mut state = RmState::default();
        state.apply(&set(0, "v1", Some(2)));
        assert_eq!(
            state.queue_config_history.versions().count(),
            0,
            "nothing before 1"
        );
        state.apply(&set(1, "v2", Some(2)));
        state.apply(&set(2, "v3", Some(2)));
        state.apply(&set(3, "v4", Some(2)));
        assert_eq!(state.queue_config_version, 4);
        assert_eq!(
            state.queue_config_history.versions().collect::<Vec<_>>(),
            [2, 3]
        );
        assert_eq!(state.queue_config_history.get(3).unwrap()["k"], "v3");
        // A stale change keeps nothing and changes nothing.
        let before = state.clone();
        assert_eq!(
            state.apply(&set(1, "late", Some(2))),
            RmResponse::QueueConfigVersionRejected {
                expected: 1,
                actual: 4
            }
        );
        assert_eq!(state, before);
        // The entries written before history existed keep none, as they did.
        state.apply(&set(4, "v5", None));
        assert_eq!(
            state.queue_config_history.versions().collect::<Vec<_>>(),
            [2, 3]
        );
        state.apply(&set(5, "v6", Some(0)));
        assert_eq!(
            state.queue_config_history.versions().count(),
            0,
            "keep 0 keeps none"
        );
    }
}

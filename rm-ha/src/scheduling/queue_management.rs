//! [`queue_management_round`]: Hadoop's `GuaranteedOrZeroCapacityOverTimePolicy`, run by the
//! scheduling monitor's `QueueManagementDynamicEditPolicy`, deciding which leaves of managed
//! parents hold their template's capacity.

use std::collections::{BTreeMap, BTreeSet};

use yarn_scheduler::{CreatedAs, managed_parent_of};

use crate::state_machine::RmState;

/// What one round changes: leaves that give up their capacity, then leaves that take it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueManagementChanges {
    /// Leaves holding their capacity with no application that has not ended.
    pub deactivated: Vec<String>,
    /// Leaves holding none whose applications wait, earliest submission first.
    pub activated: Vec<String>,
}

impl QueueManagementChanges {
    /// Whether the round changes nothing.
    pub fn is_empty(&self) -> bool {
        self.deactivated.is_empty() && self.activated.is_empty()
    }
}

/// One round of the policy over `state`, per managed parent, by Hadoop's rules: a leaf that
/// holds its capacity and has no application that has not ended gives it up (and so does one
/// beyond the number the parent holds, in path order, which holds nothing already); then the room
/// left (the leaves the parent's capacity holds, less those still holding theirs) goes to the
/// leaves without capacity that hold such applications, found by walking the parent's
/// applications in submission order (earliest first, then by id), each leaf once.
///
/// Guarantees: pure and deterministic; a leaf is never both given up and taken in one round;
/// the state machine checks the room again when it applies the changes, so a leaf created
/// meanwhile cannot take the parent over its capacity.
pub fn queue_management_round(state: &RmState) -> QueueManagementChanges {
    let mut changes = QueueManagementChanges::default();
    // The managed parents' leaves, with the room each parent has.
    let mut parents: BTreeMap<String, usize> = BTreeMap::new();
    let in_use: BTreeSet<&str> = state
        .applications
        .values()
        .filter(|application| !application.state.is_final())
        .map(|application| application.queue.as_str())
        .collect();
    let mut holding: BTreeMap<String, usize> = BTreeMap::new();
    for (path, kind) in &state.dynamic_queues {
        let Some((parent, settings)) = managed_parent_of(&state.queue_config, path) else {
            continue;
        };
        let limit = *parents
            .entry(parent.clone())
            .or_insert(settings.activated_limit);
        if *kind != CreatedAs::GuaranteedLeaf {
            continue;
        }
        // Beyond the limit (a template capacity raised since), a leaf already holds nothing
        // (the configuration gives its place to those before it in path order): recorded as
        // holding, it would never be given its capacity again.
        let held = holding.entry(parent).or_default();
        if *held < limit && in_use.contains(path.as_str()) {
            *held += 1;
        } else {
            changes.deactivated.push(path.clone());
        }
    }
    let mut waiting: Vec<(i64, i32, &str)> = state
        .applications
        .iter()
        .filter(|(_, application)| !application.state.is_final())
        .filter(|(_, application)| {
            state.dynamic_queues.get(&application.queue) == Some(&CreatedAs::Leaf)
        })
        .map(|(id, application)| (application.submit_time_ms, *id, application.queue.as_str()))
        .collect();
    waiting.sort_unstable();
    for (_, _, leaf) in waiting {
        let Some((parent, _)) = leaf.rsplit_once('.') else {
            continue;
        };
        let Some(limit) = parents.get(parent) else {
            continue;
        };
        let held = holding.entry(parent.to_owned()).or_default();
        if *held < *limit && !changes.activated.iter().any(|taken| taken == leaf) {
            *held += 1;
            changes.activated.push(leaf.to_owned());
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduling::capacity_properties;
    use crate::state_machine::{ApplicationRecord, ApplicationState};

    /// `root.p` a managed parent whose leaves hold 40 percent each (two at once).
    fn state(dynamic: &[(&str, CreatedAs)], applications: &[(i32, &str, i64, bool)]) -> RmState {
        RmState {
            queue_config: capacity_properties(&[
                ("root.queues", "default,p"),
                ("root.p.auto-create-child-queue.enabled", "true"),
                ("root.p.leaf-queue-template.capacity", "40"),
            ]),
            dynamic_queues: dynamic
                .iter()
                .map(|(path, kind)| ((*path).to_owned(), *kind))
                .collect(),
            applications: applications
                .iter()
                .map(|&(id, queue, submit_time_ms, ended)| {
                    let application = ApplicationRecord {
                        queue: queue.to_owned(),
                        submit_time_ms,
                        state: if ended {
                            ApplicationState::Finished
                        } else {
                            ApplicationState::Running
                        },
                        ..ApplicationRecord::default()
                    };
                    (id, application)
                })
                .collect(),
            ..RmState::default()
        }
    }

    #[test]
    fn idle_leaves_give_up_their_capacity_to_waiting_ones_in_submission_order() {
        use CreatedAs::{GuaranteedLeaf, Leaf};
        let state = state(
            &[
                ("root.p.a", GuaranteedLeaf),
                ("root.p.b", GuaranteedLeaf),
                ("root.p.c", Leaf),
                ("root.p.d", Leaf),
                ("root.p.e", Leaf),
            ],
            &[
                // a's application ended; b still runs one.
                (1, "root.p.a", 100, true),
                (2, "root.p.b", 200, false),
                // d's waits longer than c's: d is activated into the one place left.
                (3, "root.p.c", 400, false),
                (4, "root.p.d", 300, false),
                (5, "root.p.d", 500, false),
            ],
        );
        assert_eq!(
            queue_management_round(&state),
            QueueManagementChanges {
                deactivated: vec!["root.p.a".to_owned()],
                activated: vec!["root.p.d".to_owned()],
            }
        );
    }

    #[test]
    fn a_leaf_beyond_what_the_parent_holds_gives_up_what_it_is_recorded_to_hold() {
        use CreatedAs::GuaranteedLeaf;
        // Three recorded as holding 40 percent (the template was raised since): c, last in path
        // order, holds nothing and must wait for its turn like any leaf without capacity.
        let state = state(
            &[
                ("root.p.a", GuaranteedLeaf),
                ("root.p.b", GuaranteedLeaf),
                ("root.p.c", GuaranteedLeaf),
            ],
            &[
                (1, "root.p.a", 1, false),
                (2, "root.p.b", 2, false),
                (3, "root.p.c", 3, false),
            ],
        );
        assert_eq!(
            queue_management_round(&state),
            QueueManagementChanges {
                deactivated: vec!["root.p.c".to_owned()],
                activated: Vec::new(),
            }
        );
    }

    #[test]
    fn nothing_changes_while_every_holding_leaf_is_used_or_no_leaf_waits() {
        use CreatedAs::{GuaranteedLeaf, Leaf};
        let full = state(
            &[
                ("root.p.a", GuaranteedLeaf),
                ("root.p.b", GuaranteedLeaf),
                ("root.p.c", Leaf),
            ],
            &[
                (1, "root.p.a", 1, false),
                (2, "root.p.b", 2, false),
                (3, "root.p.c", 3, false),
            ],
        );
        assert!(queue_management_round(&full).is_empty());
        let idle = state(&[("root.p.c", Leaf)], &[(1, "root.p.c", 1, true)]);
        assert!(queue_management_round(&idle).is_empty());
    }
}

//! The replicated half of auto-created queues: which queues submissions created (see
//! [`CommandV1::SubmitApplicationCreatingQueues`](super::CommandV1)), their removal once
//! unused (see [`CommandV1::RemoveAutoCreatedQueues`](super::CommandV1)) and, under a managed
//! parent, which leaves hold their capacity (see
//! [`CommandV1::ManageAutoCreatedLeafQueues`](super::CommandV1)).
//!
//! The state keeps only their paths and kinds: what each queue is configured with follows
//! from its parent's templates in the committed configuration, so every replica's leader
//! builds the same queues from the same two values.

use yarn_scheduler::{CreatedAs, activation_fits, created_queues, creation_allowed};

use super::{ApplicationRecord, RmResponse, RmState};

impl RmState {
    /// Records a submission as [`CommandV1::SubmitApplication`](super::CommandV1) does and,
    /// if the application is new, the queues it created (parents first, the leaf last; one
    /// already recorded is kept as it is, one removed meanwhile is recorded again) and, when
    /// given, its lifetime's end. A new leaf of a managed parent holds its capacity when the
    /// parent's activated leaves leave room for it, as Hadoop's
    /// `GuaranteedOrZeroCapacityOverTimePolicy` decides at creation. Refused, recording
    /// nothing, when one of the queues is recorded as the other kind (a leaf where a parent is
    /// wanted, or the reverse).
    pub(super) fn submit_application_creating_queues(
        &mut self,
        cluster_timestamp_ms: i64,
        application: &ApplicationRecord,
        deadline_ms: Option<i64>,
        created: &[String],
    ) -> RmResponse {
        // Another submission committed in between may have created one of these as the other
        // kind: the leader's check no longer holds, and nothing is recorded.
        let created = created_queues(created);
        // Under rules 2, a managed parent's limits hold against the leaves committed meanwhile.
        if let Some((queue, _)) =
            created
                .iter()
                .find(|(path, kind)| match self.dynamic_queues.get(*path) {
                    Some(held) => held.is_leaf() != kind.is_leaf(),
                    None => {
                        self.apply_rules >= 2
                            && !creation_allowed(&self.queue_config, &self.dynamic_queues, path)
                    }
                })
        {
            return RmResponse::AutoCreatedQueueConflict {
                queue: queue.clone(),
            };
        }
        let response = match deadline_ms {
            Some(deadline_ms) => self.submit_application_with_lifetime(
                cluster_timestamp_ms,
                application,
                deadline_ms,
            ),
            None => self.submit_application(cluster_timestamp_ms, application),
        };
        if response == RmResponse::ApplicationSubmitted {
            for (path, kind) in created {
                if self.dynamic_queues.contains_key(&path) {
                    continue;
                }
                // Under rules 1 a new leaf holds nothing: a log replays as it was applied.
                let kind = if self.apply_rules >= 2
                    && activation_fits(&self.queue_config, &self.dynamic_queues, &path)
                {
                    CreatedAs::GuaranteedLeaf
                } else {
                    kind
                };
                self.dynamic_queues.insert(path, kind);
            }
        }
        response
    }

    /// Removes the auto-created queues among `queues` that are still unused: recorded, with no
    /// auto-created queue under them left and no application that has not ended in them or
    /// under them. Queues are taken in the order given, so a parent listed after its children
    /// goes with them.
    pub(super) fn remove_auto_created_queues(&mut self, queues: &[String]) -> RmResponse {
        let mut removed = Vec::new();
        for path in queues {
            if self.auto_created_queue_unused(path) && self.dynamic_queues.remove(path).is_some() {
                removed.push(path.clone());
            }
        }
        RmResponse::AutoCreatedQueuesRemoved { removed }
    }

    /// Applies a round of the queue management policy: each of `deactivated` that holds its
    /// capacity gives it up, unless an application submitted since uses it while its parent
    /// has room for it; then each of `activated` (in order) that holds none takes it while its
    /// managed parent has room. The leaves whose capacity changed are answered.
    pub(super) fn manage_auto_created_leaf_queues(
        &mut self,
        deactivated: &[String],
        activated: &[String],
    ) -> RmResponse {
        let mut changed = Vec::new();
        // The idle ones first, so that a leaf used since is judged by the room they leave.
        for used in [false, true] {
            for path in deactivated {
                if self.dynamic_queues.get(path) != Some(&CreatedAs::GuaranteedLeaf)
                    || self.auto_created_queue_used(path) != used
                    || used && activation_fits(&self.queue_config, &self.dynamic_queues, path)
                {
                    continue;
                }
                self.dynamic_queues.insert(path.clone(), CreatedAs::Leaf);
                changed.push(path.clone());
            }
        }
        for path in activated {
            if self.dynamic_queues.get(path) == Some(&CreatedAs::Leaf)
                && activation_fits(&self.queue_config, &self.dynamic_queues, path)
            {
                self.dynamic_queues
                    .insert(path.clone(), CreatedAs::GuaranteedLeaf);
                changed.push(path.clone());
            }
        }
        RmResponse::AutoCreatedLeafQueuesManaged { changed }
    }

    /// Whether an application that has not ended is in the queue at `path` or under it.
    fn auto_created_queue_used(&self, path: &str) -> bool {
        let below = format!("{path}.");
        self.applications.values().any(|application| {
            !application.state.is_final()
                && (application.queue == path || application.queue.starts_with(&below))
        })
    }

    /// Whether no auto-created queue is under `path` and no application that has not ended
    /// is in it or under it.
    pub fn auto_created_queue_unused(&self, path: &str) -> bool {
        let below = format!("{path}.");
        // Children sort right after `below`, which no path equals.
        let has_children = self
            .dynamic_queues
            .range::<str, _>((
                std::ops::Bound::Included(below.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .next()
            .is_some_and(|(queue, _)| queue.starts_with(&below));
        !has_children && !self.auto_created_queue_used(path)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{APPLY_RULES, CommandV1, RmCommand};
    use super::*;

    /// Epoch 1 with `count` application ids handed out.
    fn started_state(count: u32) -> RmState {
        let mut state = RmState::default();
        for command in [
            CommandV1::BeginEpoch {
                leader_rm_id: "rm1".to_owned(),
                now_ms: 1_700_000_000_000,
            },
            CommandV1::AdoptApplyRules { rules: APPLY_RULES },
            CommandV1::AllocateApplicationIds { count },
        ] {
            state.apply(&RmCommand::V1(command));
        }
        state
    }

    fn submit(state: &mut RmState, seq: i32, queue: &str, created: &[&str]) -> RmResponse {
        let application = ApplicationRecord {
            sequence: seq,
            queue: queue.to_owned(),
            ..ApplicationRecord::default()
        };
        state.apply(&RmCommand::V1(CommandV1::SubmitApplicationCreatingQueues {
            cluster_timestamp_ms: state.cluster_timestamp_ms,
            application,
            deadline_ms: None,
            created: created.iter().map(|q| (*q).to_owned()).collect(),
        }))
    }

    fn remove(state: &mut RmState, queues: &[&str]) -> Vec<String> {
        match state.apply(&RmCommand::V1(CommandV1::RemoveAutoCreatedQueues {
            queues: queues.iter().map(|q| (*q).to_owned()).collect(),
        })) {
            RmResponse::AutoCreatedQueuesRemoved { removed } => removed,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_submission_records_its_queues_once_and_a_duplicate_records_nothing() {
        let mut state = started_state(3);
        let created = ["root.users.eng", "root.users.eng.bob"];
        assert_eq!(
            submit(&mut state, 1, "root.users.eng.bob", &created),
            RmResponse::ApplicationSubmitted
        );
        assert_eq!(
            state.dynamic_queues.keys().collect::<Vec<_>>(),
            created.iter().collect::<Vec<_>>()
        );
        assert_eq!(
            state.dynamic_queues["root.users.eng"],
            yarn_scheduler::CreatedAs::Parent
        );
        // A replayed submission creates nothing, even with other queues named.
        assert_eq!(
            submit(&mut state, 1, "root.users.eng.bob", &["root.users.other"]),
            RmResponse::ApplicationAlreadySubmitted
        );
        assert_eq!(state.dynamic_queues.len(), 2);
        // A submission that wants the created parent as its leaf records nothing.
        assert_eq!(
            submit(&mut state, 2, "root.users.eng", &["root.users.eng"]),
            RmResponse::AutoCreatedQueueConflict {
                queue: "root.users.eng".to_owned()
            }
        );
        assert!(!state.applications.contains_key(&2));
    }

    #[test]
    fn a_managed_parents_leaves_hold_their_capacity_while_it_has_room() {
        use yarn_scheduler::CreatedAs::{GuaranteedLeaf, Leaf};
        let mut state = started_state(4);
        state.queue_config = crate::scheduling::capacity_properties(&[
            ("root.queues", "default,p"),
            ("root.p.auto-create-child-queue.enabled", "true"),
            ("root.p.leaf-queue-template.capacity", "50"),
        ]);
        // Under the rules before 2, a log replays as it was applied: the leaf holds nothing.
        let mut before = state.clone();
        before.apply_rules = 1;
        submit(&mut before, 1, "root.p.a", &["root.p.a"]);
        assert_eq!(before.dynamic_queues["root.p.a"], Leaf);
        for (seq, leaf) in [(1, "root.p.a"), (2, "root.p.b"), (3, "root.p.c")] {
            assert_eq!(
                submit(&mut state, seq, leaf, &[leaf]),
                RmResponse::ApplicationSubmitted
            );
        }
        let kinds = |state: &RmState| state.dynamic_queues.values().copied().collect::<Vec<_>>();
        assert_eq!(kinds(&state), [GuaranteedLeaf, GuaranteedLeaf, Leaf]);
        let manage = |state: &mut RmState, deactivated: &[&str], activated: &[&str]| {
            let owned = |paths: &[&str]| paths.iter().map(|p| (*p).to_owned()).collect();
            match state.apply(&RmCommand::V1(CommandV1::ManageAutoCreatedLeafQueues {
                deactivated: owned(deactivated),
                activated: owned(activated),
            })) {
                RmResponse::AutoCreatedLeafQueuesManaged { changed } => changed,
                other => panic!("{other:?}"),
            }
        };
        // No room for c until a gives its capacity up; then c takes it, and b cannot take a
        // second one.
        assert!(manage(&mut state, &[], &["root.p.c"]).is_empty());
        state.apply(&RmCommand::V1(CommandV1::KillApplication {
            application_seq: 1,
            diagnostics: String::new(),
            now_ms: 1,
        }));
        assert_eq!(
            manage(&mut state, &["root.p.a"], &["root.p.c", "root.p.b"]),
            ["root.p.a", "root.p.c"]
        );
        assert_eq!(kinds(&state), [Leaf, GuaranteedLeaf, GuaranteedLeaf]);
        // A leaf that is not a managed parent's, or no leaf, is left alone.
        assert!(manage(&mut state, &["root.p.x"], &["root.p.x"]).is_empty());
        // A leaf whose application was submitted after the round found it idle keeps its
        // capacity; once it is idle, it gives it up.
        assert!(manage(&mut state, &["root.p.b"], &[]).is_empty());
        state.apply(&RmCommand::V1(CommandV1::KillApplication {
            application_seq: 2,
            diagnostics: String::new(),
            now_ms: 1,
        }));
        assert_eq!(manage(&mut state, &["root.p.b"], &[]), ["root.p.b"]);

        // Two recorded as holding where one fits, both idle at the round; an application
        // comes to c before the entry applies: b gives its place up first, and c keeps it.
        state.queue_config.insert(
            "yarn.scheduler.capacity.root.p.leaf-queue-template.capacity".to_owned(),
            "60".to_owned(),
        );
        state
            .dynamic_queues
            .insert("root.p.b".to_owned(), GuaranteedLeaf);
        assert_eq!(
            manage(&mut state, &["root.p.c", "root.p.b"], &[]),
            ["root.p.b"]
        );
        assert_eq!(kinds(&state), [Leaf, Leaf, GuaranteedLeaf]);

        // The limits hold when a submission applies: max-queues 3 is reached.
        state.queue_config.insert(
            "yarn.scheduler.capacity.root.p.auto-create-child-queue.max-queues".to_owned(),
            "3".to_owned(),
        );
        assert_eq!(
            submit(&mut state, 4, "root.p.d", &["root.p.d"]),
            RmResponse::AutoCreatedQueueConflict {
                queue: "root.p.d".to_owned()
            }
        );
        assert!(!state.applications.contains_key(&4));
    }

    #[test]
    fn only_unused_queues_are_removed_children_first() {
        let mut state = started_state(3);
        submit(
            &mut state,
            1,
            "root.users.eng.bob",
            &["root.users.eng", "root.users.eng.bob"],
        );
        assert!(remove(&mut state, &["root.users.eng.bob", "root.users.eng"]).is_empty());
        state.apply(&RmCommand::V1(CommandV1::KillApplication {
            application_seq: 1,
            diagnostics: String::new(),
            now_ms: 1,
        }));
        // The parent first: it still holds its child then.
        assert_eq!(
            remove(&mut state, &["root.users.eng", "root.users.eng.bob"]),
            ["root.users.eng.bob"]
        );
        assert_eq!(remove(&mut state, &["root.users.eng"]), ["root.users.eng"]);
        assert!(state.dynamic_queues.is_empty());
        assert!(remove(&mut state, &["root.users.eng"]).is_empty());
    }
}

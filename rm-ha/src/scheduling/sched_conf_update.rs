//! [`SchedConfUpdate`]: a change of the queue configuration in the terms of Hadoop's mutation
//! API (`PUT /ws/v1/cluster/scheduler-conf`, `yarn schedulerconf`), applied to the properties
//! in force.

use std::collections::BTreeMap;

use yarn_proto::pb;
use yarn_scheduler::CapacitySchedulerConfiguration;

/// The prefix of every CapacityScheduler key.
const PREFIX: &str = "yarn.scheduler.capacity.";

/// Queues to remove, add and update, and global keys to set, applied in that order, as Hadoop
/// applies them. A `None` value unsets a key, as does an empty one for a queue key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedConfUpdate {
    /// Full paths of queues to remove, with their descendants.
    pub remove_queues: Vec<String>,
    /// New queues (full paths) with their keys, relative to the queue.
    pub add_queues: Vec<QueueConfigChange>,
    /// Existing queues (full paths) with the keys to change, relative to the queue.
    pub update_queues: Vec<QueueConfigChange>,
    /// Full keys to change.
    pub global_updates: Vec<(String, Option<String>)>,
}

/// One queue's keys in a [`SchedConfUpdate`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueConfigChange {
    /// The queue's full path.
    pub queue: String,
    /// Keys below the queue (`capacity`, `state`, ...) and their new values.
    pub params: Vec<(String, Option<String>)>,
}

/// What a change does to one queue, for the queue-admin policy: which queue's administrators
/// may make it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QueueChangeKind {
    /// Adding the queue: its parent's administrators.
    Add,
    /// Removing or updating it: its own.
    Change,
}

impl SchedConfUpdate {
    /// The queues the update touches, each with what it does to it.
    fn queues(&self) -> impl Iterator<Item = (&str, QueueChangeKind)> {
        let add = self
            .add_queues
            .iter()
            .map(|change| (change.queue.as_str(), QueueChangeKind::Add));
        let change = self
            .remove_queues
            .iter()
            .map(String::as_str)
            .chain(
                self.update_queues
                    .iter()
                    .map(|change| change.queue.as_str()),
            )
            .map(|queue| (queue, QueueChangeKind::Change));
        add.chain(change)
    }

    /// The queues whose administrators may make this update under Hadoop's queue-admin
    /// policy, as full paths of `conf`: for each queue it removes or updates, that queue, and
    /// for each it adds, the parent; a queue `conf` lacks stands for its nearest existing
    /// ancestor. `None` when it changes global keys, which only administrators may. Paths are
    /// those [`apply`](Self::apply) accepts: full, from `root`.
    pub fn queues_to_administer(
        &self,
        conf: &CapacitySchedulerConfiguration,
    ) -> Option<Vec<String>> {
        if !self.global_updates.is_empty() {
            return None;
        }
        let mut paths: Vec<String> = Vec::new();
        for (queue, kind) in self.queues() {
            let mut path = queue.trim();
            if kind == QueueChangeKind::Add {
                path = path.rsplit_once('.').map_or(path, |(parent, _)| parent);
            }
            let existing = loop {
                if let Some(found) = conf.queue(path) {
                    break found.path.clone();
                }
                match path.rsplit_once('.') {
                    Some((parent, _)) => path = parent,
                    // A path not from root, which apply refuses, is an administrator's matter.
                    None => return None,
                }
            };
            if !paths.contains(&existing) {
                paths.push(existing);
            }
        }
        Some(paths)
    }

    /// `properties` with the update applied: a removed queue leaves its parent's `queues`
    /// list (which goes, with the parent's `ordering-policy`, when it empties) and takes its
    /// keys and its descendants' with it; an added queue joins its parent's list (a parent
    /// that gains its first child loses its leaf `ordering-policy`) and gets its params as
    /// `yarn.scheduler.capacity.<queue>.<param>`. The result is not validated here: the caller
    /// checks it as a refresh.
    ///
    /// # Errors
    ///
    /// Hadoop's words for a queue that cannot be removed or added: a path without a parent
    /// (`Can't remove queue`, `Can't add invalid queue`), a removed queue its parent does not
    /// list (`Queue ... not found`), an added queue its parent lists already
    /// (`Can't add existing queue`); a queue path that is not a full path from `root` or has an
    /// empty part, and a global key outside `yarn.scheduler.capacity.*`.
    pub fn apply(
        &self,
        properties: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, String> {
        for (queue, _) in self.queues() {
            check_path(queue)?;
        }
        for (key, _) in &self.global_updates {
            if !key.trim().starts_with(PREFIX) {
                return Err(format!(
                    "global key {key:?} is not a {PREFIX}* key: the scheduler's yarn-site.xml \
                     keys are read from each replica's yarn-site.xml"
                ));
            }
        }
        let mut conf = properties.clone();
        for queue in &self.remove_queues {
            let Some((parent, leaf)) = queue.trim().rsplit_once('.') else {
                return Err(format!("Can't remove queue {queue}"));
            };
            let mut siblings = children(&conf, parent);
            let Some(position) = siblings.iter().position(|name| name == leaf) else {
                return Err(format!("Queue {queue} not found"));
            };
            siblings.remove(position);
            set_children(&mut conf, parent, &siblings, false);
            let own = format!("{PREFIX}{}.", queue.trim());
            conf.retain(|key, _| !key.starts_with(&own));
        }
        for change in &self.add_queues {
            let queue = change.queue.trim();
            let Some((parent, leaf)) = queue.rsplit_once('.') else {
                return Err(format!("Can't add invalid queue {queue}"));
            };
            let mut siblings = children(&conf, parent);
            if siblings.iter().any(|name| name == leaf) {
                return Err(format!("Can't add existing queue {queue}"));
            }
            siblings.push(leaf.to_owned());
            set_children(&mut conf, parent, &siblings, true);
            set_params(&mut conf, queue, &change.params);
        }
        for change in &self.update_queues {
            set_params(&mut conf, change.queue.trim(), &change.params);
        }
        for (key, value) in &self.global_updates {
            match value {
                Some(value) => conf.insert(key.trim().to_owned(), value.clone()),
                None => conf.remove(key.trim()),
            };
        }
        Ok(conf)
    }
}

/// The children `parent`'s `queues` key lists.
fn children(conf: &BTreeMap<String, String>, parent: &str) -> Vec<String> {
    conf.get(&format!("{PREFIX}{parent}.queues"))
        .map(|list| {
            list.split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Refuses a queue path that is not `root` or below it, or that has an empty part.
fn check_path(queue: &str) -> Result<(), String> {
    let queue = queue.trim();
    let from_root = queue == "root" || queue.starts_with("root.");
    if !from_root || queue.split('.').any(str::is_empty) {
        return Err(format!(
            "Queue path {queue:?} is not a full path from root (root.parent.queue)"
        ));
    }
    Ok(())
}

/// Sets `parent`'s `queues` list; a parent left without children by a removal loses that key
/// and its `ordering-policy`, and one gaining its first child by an addition loses its
/// `ordering-policy`: a leaf's policy (`fifo`, `fair`) is no parent's.
fn set_children(conf: &mut BTreeMap<String, String>, parent: &str, names: &[String], added: bool) {
    let list = format!("{PREFIX}{parent}.queues");
    let policy = format!("{PREFIX}{parent}.ordering-policy");
    if names.is_empty() {
        conf.remove(&list);
        conf.remove(&policy);
        return;
    }
    if added && names.len() == 1 {
        conf.remove(&policy);
    }
    conf.insert(list, names.join(","));
}

fn set_params(
    conf: &mut BTreeMap<String, String>,
    queue: &str,
    params: &[(String, Option<String>)],
) {
    for (param, value) in params {
        let key = format!("{PREFIX}{queue}.{}", param.trim());
        match value.as_deref().filter(|value| !value.is_empty()) {
            Some(value) => conf.insert(key, value.to_owned()),
            None => conf.remove(&key),
        };
    }
}

impl From<pb::UpdateSchedulerConfigurationRequestProto> for SchedConfUpdate {
    fn from(request: pb::UpdateSchedulerConfigurationRequestProto) -> Self {
        let params = |params: Vec<pb::SchedConfParamProto>| {
            params
                .into_iter()
                .map(|param| (param.key, param.value))
                .collect()
        };
        let queues = |queues: Vec<pb::SchedConfQueueProto>| {
            queues
                .into_iter()
                .map(|queue| QueueConfigChange {
                    queue: queue.queue,
                    params: params(queue.params),
                })
                .collect()
        };
        Self {
            remove_queues: request.remove_queues,
            add_queues: queues(request.add_queues),
            update_queues: queues(request.update_queues),
            global_updates: params(request.global_updates),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn properties(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (format!("{PREFIX}{k}"), (*v).to_owned()))
            .collect()
    }

    fn change(queue: &str, params: &[(&str, Option<&str>)]) -> QueueConfigChange {
        QueueConfigChange {
            queue: queue.to_owned(),
            params: params
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned)))
                .collect(),
        }
    }

    #[test]
    fn removes_then_adds_then_updates_then_global_keys() {
        let before = properties(&[
            ("root.queues", "default,a"),
            ("root.default.capacity", "50"),
            ("root.a.capacity", "50"),
            ("root.a.queues", "a1"),
            ("root.a.ordering-policy", "utilization"),
            ("root.a.a1.capacity", "100"),
            ("root.a.a1.state", "STOPPED"),
            ("maximum-applications", "100"),
        ]);
        let update = SchedConfUpdate {
            remove_queues: vec!["root.a.a1".to_owned()],
            add_queues: vec![change("root.a.a2", &[("capacity", Some("100"))])],
            update_queues: vec![change(
                "root.default",
                &[("capacity", Some("40")), ("maximum-capacity", Some("90"))],
            )],
            global_updates: vec![(
                "yarn.scheduler.capacity.maximum-applications".to_owned(),
                None,
            )],
        };
        let after = update.apply(&before).unwrap();
        assert_eq!(
            after,
            properties(&[
                ("root.queues", "default,a"),
                ("root.default.capacity", "40"),
                ("root.default.maximum-capacity", "90"),
                ("root.a.capacity", "50"),
                ("root.a.queues", "a2"),
                ("root.a.a2.capacity", "100"),
            ]),
            "a1's keys went; a gained a2 as its only child, so its ordering-policy went too"
        );
    }

    #[test]
    fn removing_the_last_child_and_clearing_keys() {
        let before = properties(&[
            ("root.queues", "a"),
            ("root.a.capacity", "100"),
            ("root.a.queues", "a1"),
            ("root.a.a1.capacity", "100"),
            ("root.a.a1.queues", "x"),
            ("root.a.a1.x.capacity", "100"),
            ("root.a.ordering-policy", "utilization"),
        ]);
        let update = SchedConfUpdate {
            remove_queues: vec!["root.a.a1".to_owned()],
            update_queues: vec![change("root.a", &[("capacity", Some(""))])],
            ..SchedConfUpdate::default()
        };
        assert_eq!(
            update.apply(&before).unwrap(),
            properties(&[("root.queues", "a")]),
            "descendants go, an emptied list and its policy go, an empty value unsets"
        );
    }

    #[test]
    fn a_removal_leaving_one_child_keeps_the_parents_policy() {
        let before = properties(&[
            ("root.queues", "a,b"),
            ("root.ordering-policy", "priority-utilization"),
            ("root.a.capacity", "50"),
            ("root.b.capacity", "50"),
            ("root.b.state", "STOPPED"),
        ]);
        let update = SchedConfUpdate {
            remove_queues: vec!["root.b".to_owned()],
            update_queues: vec![change("root.a", &[("capacity", Some("100"))])],
            ..SchedConfUpdate::default()
        };
        let after = update.apply(&before).unwrap();
        assert_eq!(
            after[&format!("{PREFIX}root.ordering-policy")],
            "priority-utilization"
        );
        assert_eq!(after[&format!("{PREFIX}root.queues")], "a");
    }

    #[test]
    fn paths_not_from_root_and_foreign_global_keys_are_refused() {
        let before = properties(&[("root.queues", "a"), ("root.a.capacity", "100")]);
        for queue in ["queue-mappings-override", "root.a.", "root..a", "a.b"] {
            let update = SchedConfUpdate {
                update_queues: vec![change(queue, &[("enable", Some("true"))])],
                ..SchedConfUpdate::default()
            };
            let refusal = update.apply(&before).unwrap_err();
            assert!(
                refusal.contains("not a full path from root"),
                "{queue}: {refusal}"
            );
        }
        let foreign = SchedConfUpdate {
            global_updates: vec![(
                "yarn.scheduler.maximum-allocation-mb".to_owned(),
                Some("1".to_owned()),
            )],
            ..SchedConfUpdate::default()
        };
        assert!(
            foreign
                .apply(&before)
                .unwrap_err()
                .contains("read from each replica's yarn-site.xml")
        );
    }

    #[test]
    fn bad_paths_are_refused_in_hadoops_words() {
        let before = properties(&[("root.queues", "a"), ("root.a.capacity", "100")]);
        let refusal = |update: SchedConfUpdate| update.apply(&before).unwrap_err();
        let remove = |queue: &str| SchedConfUpdate {
            remove_queues: vec![queue.to_owned()],
            ..SchedConfUpdate::default()
        };
        let add = |queue: &str| SchedConfUpdate {
            add_queues: vec![change(queue, &[])],
            ..SchedConfUpdate::default()
        };
        assert_eq!(refusal(remove("root")), "Can't remove queue root");
        assert_eq!(refusal(remove("root.b")), "Queue root.b not found");
        assert_eq!(refusal(add("root")), "Can't add invalid queue root");
        assert_eq!(refusal(add("root.a")), "Can't add existing queue root.a");
        let update = SchedConfUpdate {
            remove_queues: vec!["root.x".to_owned()],
            add_queues: vec![change("root.a.b", &[])],
            update_queues: vec![change("root.a", &[])],
            global_updates: Vec::new(),
        };
        let conf = yarn_scheduler::CapacitySchedulerConfiguration::new(
            properties(&[
                ("root.queues", "a"),
                ("root.a.capacity", "100"),
                ("root.a.queues", "a1"),
                ("root.a.a1.capacity", "100"),
            ]),
            yarn_scheduler::SchedulerSettings::default(),
        )
        .unwrap();
        assert_eq!(
            update.queues_to_administer(&conf),
            Some(vec!["root.a".to_owned(), "root".to_owned()]),
            "an added queue needs its parent's administrators, a missing queue its nearest \
             ancestor's"
        );
        let nested = SchedConfUpdate {
            add_queues: vec![change("root.a.new.leaf", &[])],
            update_queues: vec![change("root.a.a1", &[])],
            ..SchedConfUpdate::default()
        };
        assert_eq!(
            nested.queues_to_administer(&conf),
            Some(vec!["root.a".to_owned(), "root.a.a1".to_owned()])
        );
        let global = SchedConfUpdate {
            global_updates: vec![("k".to_owned(), Some("v".to_owned()))],
            ..nested
        };
        assert_eq!(global.queues_to_administer(&conf), None);
    }
}

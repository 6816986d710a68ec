//! Where a placement rule's queue path leads: the checks Hadoop makes when it loads a rule
//! and when a rule places an application.

use super::placement_variables::VARIABLES;
use crate::CapacitySchedulerConfiguration;
use crate::auto_created_queues::{CreationRefused, queues_to_create};

/// `path` with its first part, when that is an unambiguous short name of a queue, replaced by
/// the queue's full path (Hadoop's `normalizeQueuePathRoot`), so that `users.%user` means
/// `root.users.%user`.
pub(super) fn normalize_root(conf: &CapacitySchedulerConfiguration, path: &str) -> String {
    match path.split_once('.') {
        Some((first, rest)) if conf.resolve(path).is_err() => conf.resolve(first).map_or_else(
            |_| path.to_owned(),
            |queue| format!("{}.{rest}", queue.path),
        ),
        _ => path.to_owned(),
    }
}

/// The full path of the leaf `path` names (a full path, a path from a queue's short name, or
/// an unambiguous short name), or why no application can be placed there, in Hadoop's words.
pub(super) fn leaf_path(
    conf: &CapacitySchedulerConfiguration,
    path: &str,
) -> Result<String, String> {
    if path.split('.').any(str::is_empty) {
        return Err(format!("Invalid path returned by rule: '{path}'"));
    }
    let normalized = normalize_root(conf, path);
    match conf.resolve(&normalized) {
        Ok(queue) if queue.is_leaf() => Ok(queue.path.clone()),
        Ok(queue) => Err(format!(
            "Mapping rule returned a non-leaf queue '{}', cannot place application in it.",
            queue.path
        )),
        Err(candidates) if !candidates.is_empty() => Err(format!(
            "Queue '{path}' specified in mapping rule is ambiguous"
        )),
        Err(_) => match normalized.rsplit_once('.') {
            Some((parent, leaf)) if conf.resolve(parent).is_ok() => Err(format!(
                "Mapping rule specified a parent queue '{parent}', but it is not a dynamic \
                 parent queue, and no queue exists with name '{leaf}' under it."
            )),
            _ => Err(format!(
                "Queue '{path}' specified in mapping rule does not exist."
            )),
        },
    }
}

/// The full path `path` names and the queues a submission placed there creates, parents
/// first: `None` when no queue on its path creates queues (flexible auto-creation, or a
/// managed parent).
///
/// # Errors
///
/// Why a queue that creates queues may not create these (a limit, an invalid name).
pub(super) fn created_path(
    conf: &CapacitySchedulerConfiguration,
    path: &str,
) -> Result<Option<(String, Vec<String>)>, String> {
    let normalized = normalize_root(conf, path);
    match queues_to_create(conf, &normalized) {
        Ok(created) if !created.is_empty() => Ok(Some((normalized, created))),
        Ok(_) | Err(CreationRefused::NotDynamic) => Ok(None),
        Err(CreationRefused::Refused(reason)) => Err(reason),
    }
}

/// Checks, when a rule is loaded, that `pattern` can lead to a leaf of `conf`: without
/// variables it must be one; with them, the parts before the first variable must name an
/// existing parent queue (or be empty).
///
/// # Errors
///
/// Why the rule can place nothing, in Hadoop's words.
pub(super) fn check_rule_path(
    conf: &CapacitySchedulerConfiguration,
    pattern: &str,
) -> Result<(), String> {
    if pattern.is_empty() {
        return Err("Queue path is empty.".to_owned());
    }
    let parts: Vec<&str> = pattern.split('.').collect();
    if parts.iter().any(|part| part.is_empty()) {
        return Err(format!("Path segment cannot be empty '{pattern}'."));
    }
    let fixed = parts
        .iter()
        .take_while(|part| !VARIABLES.contains(part))
        .count();
    if fixed == parts.len() {
        return match leaf_path(conf, pattern) {
            Err(reason) => match created_path(conf, pattern) {
                Ok(Some(_)) => Ok(()),
                Ok(None) => Err(reason),
                Err(refusal) => Err(refusal),
            },
            Ok(_) => Ok(()),
        };
    }
    if fixed == 0 {
        return Ok(());
    }
    let prefix = normalize_root(conf, &parts[..fixed].join("."));
    match conf.resolve(&prefix) {
        Ok(queue) if queue.is_leaf() => Err(format!(
            "Queue path '{pattern}' is invalid because '{}' is a leaf queue, which can have no \
             other queues under it.",
            queue.path
        )),
        Ok(_) => Ok(()),
        Err(_) => Err(format!("No eligible parent found on path '{pattern}'.")),
    }
}

//! [`PlacementVariables`]: the values a placement rule's `%` variables stand for, for one
//! submission.

use super::Submission;
use super::queue_paths::normalize_root;
use crate::CapacitySchedulerConfiguration;

/// The submitting user, `.` written `_dot_`.
pub(super) const USER: &str = "%user";
/// The user's first group, cleaned as the user.
pub(super) const PRIMARY_GROUP: &str = "%primary_group";
/// The first of the user's other groups that names a queue where it stands in the path.
pub(super) const SECONDARY_GROUP: &str = "%secondary_group";
/// The application's name, as given.
pub(super) const APPLICATION: &str = "%application";
/// The queue the submission named; empty when it named none or `default`.
pub(super) const SPECIFIED: &str = "%specified";
/// The default queue: `root.default` until a `setDefaultQueue` rule changes it.
pub(super) const DEFAULT: &str = "%default";

/// Every variable a queue path may hold: a path part that is one of these is substituted, any
/// other part is taken as written (as in Hadoop, an unknown `%name` is a queue name).
pub(super) const VARIABLES: [&str; 6] = [
    USER,
    PRIMARY_GROUP,
    SECONDARY_GROUP,
    APPLICATION,
    SPECIFIED,
    DEFAULT,
];

/// The queue Hadoop's rules start from as the default.
pub(super) const ROOT_DEFAULT: &str = "root.default";

/// The variables of one evaluation of the rule chain. Only `%default` changes while the chain
/// runs.
#[derive(Debug)]
pub(super) struct PlacementVariables<'a> {
    submission: &'a Submission<'a>,
    default: String,
}

impl<'a> PlacementVariables<'a> {
    /// The variables of `submission`, the default queue `root.default`.
    pub(super) fn new(submission: &'a Submission<'a>) -> Self {
        Self {
            submission,
            default: ROOT_DEFAULT.to_owned(),
        }
    }

    /// The submitting user as given, which user rules match.
    pub(super) fn user(&self) -> &str {
        self.submission.user
    }

    /// The application name, which application rules match.
    pub(super) fn application(&self) -> &str {
        self.submission.application_name
    }

    /// Whether the user belongs to `group`.
    pub(super) fn in_group(&self, group: &str) -> bool {
        self.submission.groups.iter().any(|g| g == group)
    }

    /// The current default queue.
    pub(super) fn default_queue(&self) -> &str {
        &self.default
    }

    /// Makes `queue` the default queue of the rules that follow.
    pub(super) fn set_default(&mut self, queue: String) {
        self.default = queue;
    }

    /// `pattern` with each `.`-separated part that is a variable replaced by its value, left
    /// to right. `%secondary_group` is the first of the user's groups after the primary one
    /// that names a queue below the parts before it (anywhere, by short name, when it comes
    /// first), or empty; an empty part makes the path unusable, which the caller reports.
    pub(super) fn substitute(
        &self,
        conf: &CapacitySchedulerConfiguration,
        pattern: &str,
    ) -> String {
        let mut parts: Vec<String> = Vec::new();
        for part in pattern.split('.') {
            let value = match part {
                USER => clean(self.submission.user),
                PRIMARY_GROUP => self
                    .submission
                    .groups
                    .first()
                    .map(|group| clean(group))
                    .unwrap_or_default(),
                SECONDARY_GROUP => self.secondary_group(conf, &parts.join(".")),
                APPLICATION => self.submission.application_name.to_owned(),
                SPECIFIED => specified(self.submission.queue).to_owned(),
                DEFAULT => self.default.clone(),
                literal => literal.to_owned(),
            };
            parts.push(value);
        }
        parts.join(".")
    }

    fn secondary_group(&self, conf: &CapacitySchedulerConfiguration, prefix: &str) -> String {
        self.submission
            .groups
            .iter()
            .skip(1)
            .map(|group| clean(group))
            .find(|group| {
                let path = if prefix.is_empty() {
                    group.clone()
                } else {
                    normalize_root(conf, &format!("{prefix}.{group}"))
                };
                conf.resolve(&path).is_ok()
            })
            .unwrap_or_default()
    }
}

/// The queue a submission names, for `%specified`: none when it named `default`, which is
/// what a client that names no queue sends.
fn specified(queue: &str) -> &str {
    match queue.trim() {
        "default" => "",
        named => named,
    }
}

/// A user or group name as a queue name: Hadoop's `cleanName`.
fn clean(name: &str) -> String {
    name.replace('.', "_dot_")
}

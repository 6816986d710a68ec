//! [`MappingRule`]: one placement rule in Hadoop's JSON shape (`mapping-rule-json`), which the
//! legacy entries are converted to as well.

use serde::{Deserialize, Serialize};

use super::placement_variables::{
    APPLICATION, DEFAULT, PRIMARY_GROUP, PlacementVariables, SECONDARY_GROUP, SPECIFIED, USER,
};
use super::queue_paths::check_rule_path;
use crate::CapacitySchedulerConfiguration;

/// One rule: whom it matches (`type`, `matches`) and what it does with a match (`policy` and
/// the fields the policy reads). Field names and values are Hadoop's, so a rules file written
/// for Hadoop reads here unchanged, and one written by `yarn-ha placement convert` reads in
/// Hadoop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MappingRule {
    /// What `matches` is compared with.
    #[serde(rename = "type")]
    pub rule_type: RuleType,
    /// A user name (`*` for every user), a group the user belongs to, or an application name.
    pub matches: String,
    /// Where a matching submission goes.
    pub policy: Policy,
    /// The parent the user, group and application-name policies place under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_queue: Option<String>,
    /// The queue path of the `custom` policy, variables and all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_placement: Option<String>,
    /// What happens when the policy's queue is unusable; `skip` when absent, as in Hadoop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_result: Option<FallbackResult>,
    /// Whether a missing queue may be created under a parent that creates queues (flexible
    /// auto-creation); true when absent. A rule that may not create its missing queue takes
    /// its fallback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<bool>,
    /// The new default queue of the `setDefaultQueue` policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The `type` of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleType {
    /// The submitting user, or every user with `*`.
    User,
    /// A group of the submitting user (`*` is refused, as in Hadoop).
    Group,
    /// The application's name, compared exactly (`*` is a name like any other).
    Application,
}

/// The `policy` of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Policy {
    /// `customPlacement`, variables substituted.
    Custom,
    /// `[parentQueue.]%user`.
    User,
    /// `[parentQueue.]%primary_group`.
    PrimaryGroup,
    /// `[parentQueue.]%primary_group.%user`.
    PrimaryGroupUser,
    /// `[parentQueue.]%secondary_group`.
    SecondaryGroup,
    /// `[parentQueue.]%secondary_group.%user`.
    SecondaryGroupUser,
    /// `[parentQueue.]%application`.
    ApplicationName,
    /// The queue the submission named.
    Specified,
    /// The default queue, `root.default` unless a `setDefaultQueue` rule changed it.
    DefaultQueue,
    /// Changes the default queue to `value` for the rules after it, and goes on.
    SetDefaultQueue,
    /// Refuses the submission.
    Reject,
}

/// The `fallbackResult` of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FallbackResult {
    /// Go on with the next rule.
    Skip,
    /// Refuse the submission.
    Reject,
    /// Place in the default queue (refused if that is unusable too).
    PlaceDefault,
}

/// What one rule decides for a submission, before its queue is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RuleAction {
    /// The rule does not match.
    NoMatch,
    /// Place in this queue path (variables substituted).
    Place(String),
    /// The default queue changed; go on.
    DefaultChanged,
    /// Refuse.
    Reject,
}

impl MappingRule {
    /// Checks what Hadoop checks when it loads a rule: the mandatory fields, the fields its
    /// policy needs, and that the queue it names can be a leaf of `conf` (a path without
    /// variables must be an existing leaf; with variables, its fixed beginning must be an
    /// existing parent).
    ///
    /// # Errors
    ///
    /// What is wrong, in Hadoop's words where it has them.
    pub(super) fn check(&self, conf: &CapacitySchedulerConfiguration) -> Result<(), String> {
        if self.matches.is_empty() {
            return Err("Match string is empty".to_owned());
        }
        if self.rule_type == RuleType::Group && self.matches == "*" {
            return Err("Cannot match '*' for groups".to_owned());
        }
        match self.policy {
            Policy::Custom if self.custom_placement.is_none() => {
                return Err("custom queue is undefined".to_owned());
            }
            Policy::SetDefaultQueue if self.value.is_none() => {
                return Err("default queue is undefined".to_owned());
            }
            _ => {}
        }
        self.target()
            .map_or(Ok(()), |pattern| check_rule_path(conf, &pattern))
    }

    /// The queue path pattern the policy places in; `None` for `setDefaultQueue` and `reject`.
    /// Trailing dots are dropped, as Hadoop's path splitting drops them.
    pub(super) fn target(&self) -> Option<String> {
        self.pattern()
            .map(|pattern| pattern.trim_end_matches('.').to_owned())
    }

    fn pattern(&self) -> Option<String> {
        let under = |placeholder: &str| match &self.parent_queue {
            Some(parent) => format!("{parent}.{placeholder}"),
            None => placeholder.to_owned(),
        };
        Some(match self.policy {
            Policy::Custom => self.custom_placement.clone().unwrap_or_default(),
            Policy::User => under(USER),
            Policy::PrimaryGroup => under(PRIMARY_GROUP),
            Policy::PrimaryGroupUser => under(&format!("{PRIMARY_GROUP}.{USER}")),
            Policy::SecondaryGroup => under(SECONDARY_GROUP),
            Policy::SecondaryGroupUser => under(&format!("{SECONDARY_GROUP}.{USER}")),
            Policy::ApplicationName => under(APPLICATION),
            Policy::Specified => SPECIFIED.to_owned(),
            Policy::DefaultQueue => DEFAULT.to_owned(),
            Policy::SetDefaultQueue | Policy::Reject => return None,
        })
    }

    /// The fallback in force: `skip` when the rule names none.
    /// Whether the rule may create its queue when it is missing (see `create`).
    pub(super) fn creates(&self) -> bool {
        self.create.unwrap_or(true)
    }

    pub(super) fn fallback(&self) -> FallbackResult {
        self.fallback_result.unwrap_or(FallbackResult::Skip)
    }

    /// What the rule does with the submission `variables` describe, changing the default queue
    /// there for `setDefaultQueue`.
    pub(super) fn apply(
        &self,
        conf: &CapacitySchedulerConfiguration,
        variables: &mut PlacementVariables<'_>,
    ) -> RuleAction {
        let matched = match self.rule_type {
            RuleType::User => self.matches == "*" || self.matches == variables.user(),
            RuleType::Group => variables.in_group(&self.matches),
            RuleType::Application => self.matches == variables.application(),
        };
        if !matched {
            return RuleAction::NoMatch;
        }
        match self.policy {
            Policy::Reject => RuleAction::Reject,
            Policy::SetDefaultQueue => {
                let value = variables.substitute(conf, self.value.as_deref().unwrap_or_default());
                variables.set_default(value);
                RuleAction::DefaultChanged
            }
            _ => RuleAction::Place(variables.substitute(conf, &self.target().unwrap_or_default())),
        }
    }

    /// A short name of the rule for reports and refusals: `type:matches policy`, then the
    /// fields the policy reads.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "{}:{} {}",
            json_word(&self.rule_type),
            self.matches,
            json_word(&self.policy)
        );
        for (name, value) in [
            ("parentQueue", &self.parent_queue),
            ("customPlacement", &self.custom_placement),
            ("value", &self.value),
        ] {
            if let Some(value) = value {
                text.push_str(&format!(" {name}={value}"));
            }
        }
        text
    }
}

/// The JSON word of a unit enum value.
fn json_word<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default()
}

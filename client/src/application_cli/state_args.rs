//! The state filters of `application -list -appStates` and `node -list -states`, and the states
//! listed when none are given.

use std::str::FromStr;

use yarn_proto::pb::{NodeStateProto, YarnApplicationStateProto};

use super::text::{application_state_name, node_state_name};
use crate::Error;

/// Every application state, in YARN's order.
pub const ALL_APPLICATION_STATES: [YarnApplicationStateProto; 8] = [
    YarnApplicationStateProto::New,
    YarnApplicationStateProto::NewSaving,
    YarnApplicationStateProto::Submitted,
    YarnApplicationStateProto::Accepted,
    YarnApplicationStateProto::Running,
    YarnApplicationStateProto::Finished,
    YarnApplicationStateProto::Failed,
    YarnApplicationStateProto::Killed,
];

/// The states `application -list` shows without `-appStates`, as in Hadoop: the applications
/// that have not ended.
pub const DEFAULT_APPLICATION_STATES: [YarnApplicationStateProto; 3] = [
    YarnApplicationStateProto::Submitted,
    YarnApplicationStateProto::Accepted,
    YarnApplicationStateProto::Running,
];

/// Every node state, in YARN's order.
pub const ALL_NODE_STATES: [NodeStateProto; 8] = [
    NodeStateProto::NsNew,
    NodeStateProto::NsRunning,
    NodeStateProto::NsUnhealthy,
    NodeStateProto::NsDecommissioned,
    NodeStateProto::NsLost,
    NodeStateProto::NsRebooted,
    NodeStateProto::NsDecommissioning,
    NodeStateProto::NsShutdown,
];

/// The states `node -list` shows without `-states` or `-all`, as in Hadoop.
pub const DEFAULT_NODE_STATES: [NodeStateProto; 1] = [NodeStateProto::NsRunning];

/// One word of `-appStates`: an application state or `ALL`, in any case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplicationStateArg {
    /// `ALL`: every state.
    All,
    /// One state.
    State(YarnApplicationStateProto),
}

/// Reads `ALL` or a state name such as `RUNNING`, ignoring case and surrounding blanks.
///
/// Fails with [`Error::InvalidApplicationState`] naming the word and the accepted ones.
impl FromStr for ApplicationStateArg {
    type Err = Error;

    fn from_str(word: &str) -> Result<Self, Error> {
        let word = word.trim();
        if word.eq_ignore_ascii_case("ALL") {
            return Ok(Self::All);
        }
        ALL_APPLICATION_STATES
            .into_iter()
            .find(|state| application_state_name(*state).eq_ignore_ascii_case(word))
            .map(Self::State)
            .ok_or_else(|| Error::InvalidApplicationState {
                value: word.to_owned(),
            })
    }
}

/// One word of `node -states`: a node state, in any case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeStateArg(pub NodeStateProto);

/// Reads a node state name such as `UNHEALTHY`, ignoring case and surrounding blanks.
///
/// Fails with [`Error::InvalidNodeState`] naming the word and the accepted ones.
impl FromStr for NodeStateArg {
    type Err = Error;

    fn from_str(word: &str) -> Result<Self, Error> {
        let word = word.trim();
        ALL_NODE_STATES
            .into_iter()
            .find(|state| node_state_name(*state).eq_ignore_ascii_case(word))
            .map(Self)
            .ok_or_else(|| Error::InvalidNodeState {
                value: word.to_owned(),
            })
    }
}

/// The application states `-appStates` selects, each once, in YARN's order: every state if
/// `ALL` is among the words, [`DEFAULT_APPLICATION_STATES`] if there are no words.
pub fn selected_application_states(
    words: &[ApplicationStateArg],
) -> Vec<YarnApplicationStateProto> {
    if words.is_empty() {
        return DEFAULT_APPLICATION_STATES.to_vec();
    }
    if words.contains(&ApplicationStateArg::All) {
        return ALL_APPLICATION_STATES.to_vec();
    }
    ALL_APPLICATION_STATES
        .into_iter()
        .filter(|state| words.contains(&ApplicationStateArg::State(*state)))
        .collect()
}

/// The node states `node -list` selects, each once, in YARN's order: every state with `-all`
/// (which wins over `-states`, as in Hadoop), else those of `-states`, else
/// [`DEFAULT_NODE_STATES`].
pub fn selected_node_states(words: &[NodeStateArg], all: bool) -> Vec<NodeStateProto> {
    if all {
        return ALL_NODE_STATES.to_vec();
    }
    if words.is_empty() {
        return DEFAULT_NODE_STATES.to_vec();
    }
    ALL_NODE_STATES
        .into_iter()
        .filter(|state| words.contains(&NodeStateArg(*state)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app_words(words: &[&str]) -> Vec<ApplicationStateArg> {
        words.iter().map(|word| word.parse().unwrap()).collect()
    }

    fn node_words(words: &[&str]) -> Vec<NodeStateArg> {
        words.iter().map(|word| word.parse().unwrap()).collect()
    }

    #[test]
    fn application_list_defaults_to_the_states_that_have_not_ended() {
        assert_eq!(
            selected_application_states(&[]),
            [
                YarnApplicationStateProto::Submitted,
                YarnApplicationStateProto::Accepted,
                YarnApplicationStateProto::Running
            ]
        );
    }

    #[test]
    fn app_states_are_read_in_any_case_deduplicated_and_put_in_yarn_order() {
        assert_eq!(
            selected_application_states(&app_words(&["killed", " Running ", "RUNNING"])),
            [
                YarnApplicationStateProto::Running,
                YarnApplicationStateProto::Killed
            ]
        );
        assert_eq!(
            selected_application_states(&app_words(&["FINISHED", "all"])),
            ALL_APPLICATION_STATES
        );
        assert_eq!(
            "new_saving".parse::<ApplicationStateArg>().unwrap(),
            ApplicationStateArg::State(YarnApplicationStateProto::NewSaving)
        );
    }

    #[test]
    fn an_unknown_application_state_is_refused_naming_it_and_the_choices() {
        let err = "DONE".parse::<ApplicationStateArg>().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidApplicationState { value } if value == "DONE"),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(message.contains("\"DONE\""), "{message}");
        assert!(
            message.contains("ALL or one of NEW, NEW_SAVING"),
            "{message}"
        );
        // The unspecified proto value is not a state a user can ask for.
        assert!("UNKNOWN".parse::<ApplicationStateArg>().is_err());
    }

    #[test]
    fn node_list_defaults_to_running_and_all_wins_over_states() {
        assert_eq!(
            selected_node_states(&[], false),
            [NodeStateProto::NsRunning]
        );
        assert_eq!(
            selected_node_states(&node_words(&["lost"]), true),
            ALL_NODE_STATES
        );
        assert_eq!(
            selected_node_states(&node_words(&["unhealthy", "NEW", "new"]), false),
            [NodeStateProto::NsNew, NodeStateProto::NsUnhealthy]
        );
    }

    #[test]
    fn an_unknown_node_state_is_refused_naming_it_and_the_choices() {
        let err = "NS_RUNNING".parse::<NodeStateArg>().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidNodeState { value } if value == "NS_RUNNING"),
            "{err:?}"
        );
        assert!(err.to_string().contains("DECOMMISSIONING"), "{err}");
    }
}

//! [`TopFilter`]: the applications and queues `yarn-ha top` watches (`-queues`, `-users`,
//! `-types`).

use yarn_proto::pb;

use crate::ApplicationFilter;
use crate::application_cli::application::selected_application_types;

/// The queue `yarn-ha top` sums the children of when no `-queues` are given, as Hadoop does.
pub const ROOT_QUEUE: &str = "root";

/// What `yarn-ha top` watches: applications that are ACCEPTED or RUNNING (as in Hadoop), in
/// any of the queues, of any of the users and of any of the types given (an empty list leaves
/// that criterion out), and, for the header, the statistics of the queues given or, without
/// any, of the queues directly under root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopFilter {
    queues: Vec<String>,
    users: Vec<String>,
    types: Vec<String>,
}

impl TopFilter {
    /// The filter of the `-queues`, `-users` and `-types` words as given: each trimmed, empty
    /// words dropped, each kept once in the order given; types upper-cased as for
    /// `application -list` (the RM compares them ignoring case).
    pub fn new(queues: &[String], users: &[String], types: &[String]) -> Self {
        Self {
            queues: distinct_words(queues),
            users: distinct_words(users),
            types: selected_application_types(types),
        }
    }

    /// The `GetApplications` filter: ACCEPTED and RUNNING applications meeting every criterion.
    pub fn application_filter(&self) -> ApplicationFilter {
        ApplicationFilter {
            states: vec![
                pb::YarnApplicationStateProto::Accepted,
                pb::YarnApplicationStateProto::Running,
            ],
            queues: self.queues.clone(),
            users: self.users.clone(),
            types: self.types.clone(),
            ..Default::default()
        }
    }

    /// The `-queues` given, each once; empty when none were.
    pub fn queues(&self) -> &[String] {
        &self.queues
    }

    /// The queues the header names: those given, comma-separated, or `root`.
    pub fn queue_label(&self) -> String {
        if self.queues.is_empty() {
            ROOT_QUEUE.to_owned()
        } else {
            self.queues.join(",")
        }
    }
}

fn distinct_words(words: &[String]) -> Vec<String> {
    let mut distinct: Vec<String> = Vec::new();
    for word in words {
        let word = word.trim();
        if !word.is_empty() && !distinct.iter().any(|seen| seen == word) {
            distinct.push(word.to_owned());
        }
    }
    distinct
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_filter_asks_for_accepted_and_running_applications_of_the_given_kinds() {
        let filter = TopFilter::new(
            &words(&["root.a", " root.b ", "", "root.a"]),
            &words(&["alice"]),
            &words(&["spark", "SPARK", "MapReduce"]),
        );
        let request = filter.application_filter().to_request();
        assert_eq!(
            request.application_states,
            [
                pb::YarnApplicationStateProto::Accepted as i32,
                pb::YarnApplicationStateProto::Running as i32
            ]
        );
        assert_eq!(request.queues, ["root.a", "root.b"]);
        assert_eq!(request.users, ["alice"]);
        assert_eq!(request.application_types, ["SPARK", "MAPREDUCE"]);
        assert_eq!(request.limit, None, "every matching application");
        assert_eq!(filter.queue_label(), "root.a,root.b");
    }

    #[test]
    fn without_options_every_application_and_the_root_queue() {
        let filter = TopFilter::new(&[], &words(&[" "]), &[]);
        let request = filter.application_filter().to_request();
        assert!(request.queues.is_empty() && request.users.is_empty());
        assert!(request.application_types.is_empty());
        assert!(filter.queues().is_empty());
        assert_eq!(filter.queue_label(), "root");
    }
}

//! [`AccessControlList`]: Hadoop's user-and-group access list.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A Hadoop access control list in its string form `"user1,user2 group1,group2"`: users before
/// the first space, groups after it, each a comma-separated list with whitespace trimmed and
/// empty entries dropped.
///
/// `"*"` (alone, surrounding whitespace ignored) allows everyone. A single space `" "`, or any
/// value with no users and no groups, allows nobody. Parsing never fails: every string is a valid
/// list, as in Hadoop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessControlList {
    all_allowed: bool,
    users: BTreeSet<String>,
    groups: BTreeSet<String>,
}

impl AccessControlList {
    /// The wildcard that allows everyone.
    pub const WILDCARD: &'static str = "*";

    /// Parses Hadoop's string form.
    pub fn parse(value: &str) -> Self {
        if value.trim() == Self::WILDCARD {
            return Self::everyone();
        }
        let (users, groups) = match value.split_once(' ') {
            Some((users, groups)) => (users, groups),
            None => (value, ""),
        };
        Self {
            all_allowed: false,
            users: split_names(users),
            groups: split_names(groups),
        }
    }

    /// The list that allows everyone (`*`).
    pub fn everyone() -> Self {
        Self {
            all_allowed: true,
            users: BTreeSet::new(),
            groups: BTreeSet::new(),
        }
    }

    /// The list that allows nobody (`" "`).
    pub fn nobody() -> Self {
        Self {
            all_allowed: false,
            users: BTreeSet::new(),
            groups: BTreeSet::new(),
        }
    }

    /// Whether `user`, a member of `groups`, is allowed: the list is the wildcard, names the
    /// user, or names one of the groups.
    pub fn is_allowed(&self, user: &str, groups: &[String]) -> bool {
        self.all_allowed
            || self.users.contains(user)
            || groups.iter().any(|group| self.groups.contains(group))
    }

    /// Whether the list allows everyone.
    pub fn is_all_allowed(&self) -> bool {
        self.all_allowed
    }
}

fn split_names(list: &str) -> BTreeSet<String> {
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

/// Prints the canonical string form: `*`, `" "` for nobody, or sorted users, a space and sorted
/// groups.
impl fmt::Display for AccessControlList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.all_allowed {
            return f.write_str(Self::WILDCARD);
        }
        let users: Vec<&str> = self.users.iter().map(String::as_str).collect();
        let groups: Vec<&str> = self.groups.iter().map(String::as_str).collect();
        write!(f, "{} {}", users.join(","), groups.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn users_before_the_space_groups_after() {
        let acl = AccessControlList::parse("alice,bob analysts, ops");
        assert!(acl.is_allowed("alice", &[]));
        assert!(acl.is_allowed("bob", &[]));
        assert!(acl.is_allowed("carol", &groups(&["ops"])));
        assert!(!acl.is_allowed("carol", &groups(&["dev"])));
        assert!(
            !acl.is_allowed("analysts", &[]),
            "group names are not users"
        );
        // Only the first space separates users from groups, as in Hadoop.
        let acl = AccessControlList::parse("alice, bob");
        assert!(!acl.is_allowed("bob", &[]));
        assert!(acl.is_allowed("x", &groups(&["bob"])));
    }

    #[test]
    fn wildcard_allows_everyone_and_a_space_allows_nobody() {
        assert!(AccessControlList::parse(" * ").is_allowed("anyone", &[]));
        assert!(!AccessControlList::parse(" ").is_allowed("anyone", &groups(&["g"])));
        assert!(!AccessControlList::parse("").is_allowed("anyone", &[]));
        assert!(AccessControlList::parse(" ops").is_allowed("x", &groups(&["ops"])));
    }

    #[test]
    fn prints_canonical_form() {
        assert_eq!(AccessControlList::parse("b,a g").to_string(), "a,b g");
        assert_eq!(AccessControlList::parse("*").to_string(), "*");
        assert_eq!(AccessControlList::nobody().to_string(), " ");
    }
}

//! `yarn.admin.acl`: who may call the admin protocol.

use std::collections::BTreeSet;

/// An access control list in Hadoop's syntax: `*` for everyone, or comma-separated user names,
/// then optionally a space and comma-separated group names (`"alice,bob admins"`).
///
/// Callers are identified by the name in their `user` certificate. Certificates carry no
/// groups and the ResourceManager resolves none, so the group part never grants access; it is
/// kept so that [`AdminAcl::groups`] can warn an operator who relied on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminAcl {
    everyone: bool,
    users: BTreeSet<String>,
    groups: BTreeSet<String>,
}

impl AdminAcl {
    /// Parses `value`; an empty value allows nobody, as in Hadoop.
    pub fn parse(value: &str) -> Self {
        let value = value.trim_start_matches(['\n', '\r', '\t']).trim_end();
        if value.trim() == "*" {
            return Self {
                everyone: true,
                users: BTreeSet::new(),
                groups: BTreeSet::new(),
            };
        }
        let (users, groups) = value.split_once(' ').unwrap_or((value, ""));
        let names = |list: &str| {
            list.split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect()
        };
        Self {
            everyone: false,
            users: names(users),
            groups: names(groups),
        }
    }

    /// Whether `user` may call the admin protocol.
    pub fn allows(&self, user: &str) -> bool {
        self.everyone || self.users.contains(user)
    }

    /// The group names listed, which grant nothing (see the type's documentation).
    pub fn groups(&self) -> &BTreeSet<String> {
        &self.groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_allows_everyone() {
        assert!(AdminAcl::parse("*").allows("anyone"));
        assert!(AdminAcl::parse(" * ").allows("anyone"));
    }

    #[test]
    fn listed_users_are_allowed_and_groups_grant_nothing() {
        let acl = AdminAcl::parse("alice,bob admins,ops");
        assert!(acl.allows("alice"));
        assert!(acl.allows("bob"));
        assert!(!acl.allows("admins"));
        assert!(!acl.allows("carol"));
        assert_eq!(acl.groups().len(), 2);
    }

    #[test]
    fn empty_and_groups_only_allow_nobody() {
        assert!(!AdminAcl::parse("").allows("alice"));
        let groups_only = AdminAcl::parse(" admins");
        assert!(!groups_only.allows("alice"));
        assert!(groups_only.groups().contains("admins"));
    }
}

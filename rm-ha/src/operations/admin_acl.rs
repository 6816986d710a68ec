//! [`check_admin`]: YARN's `yarn.admin.acl`, the one check of who administers the cluster.

use yarn_security::PeerIdentity;

use super::RmError;
use crate::scheduling::QueueConfigSource;

/// Checks that `identity` is in `yarn.admin.acl` (of `queues`' settings) by name or by a group
/// that `hadoop.security.group.mapping` finds for it, whatever `yarn.acl.enable` says, as
/// YARN's admin service does.
///
/// # Errors
///
/// [`RmError::AccessDenied`] naming the user, its groups and the list.
pub(crate) async fn check_admin(
    queues: &QueueConfigSource,
    identity: &PeerIdentity,
) -> Result<(), RmError> {
    let acl = &queues.settings.admin_acl;
    if acl.is_allowed(&identity.name, &[]) {
        return Ok(());
    }
    let groups = queues.groups.lookup(&identity.name).await;
    if acl.is_allowed(&identity.name, &groups) {
        return Ok(());
    }
    Err(RmError::AccessDenied {
        user: identity.name.clone(),
        right: "yarn.admin.acl".to_owned(),
        message: format!(
            "user {} (groups: {}) is not allowed to administer the ResourceManager \
             (yarn.admin.acl = {:?})",
            identity.name,
            if groups.is_empty() {
                "none".to_string()
            } else {
                groups.join(",")
            },
            acl.to_string()
        ),
    })
}

#[cfg(test)]
mod tests {
    use yarn_scheduler::AccessControlList;
    use yarn_security::Role;

    use super::*;
    use crate::scheduling::test_fixtures::source;

    fn user(name: &str) -> PeerIdentity {
        PeerIdentity {
            role: Role::User,
            name: name.to_owned(),
        }
    }

    #[tokio::test]
    async fn administrators_by_name_or_group_and_no_one_else() {
        let mut queues = source();
        queues.settings.admin_acl = AccessControlList::parse("root a-team");
        check_admin(&queues, &user("root")).await.unwrap();
        // dora is in a-team by the fixture's group mapping.
        check_admin(&queues, &user("dora")).await.unwrap();
        let err = check_admin(&queues, &user("bob")).await.unwrap_err();
        assert!(
            matches!(&err, RmError::AccessDenied { user, message, .. }
                if user == "bob" && message.contains("groups: staff")),
            "{err:?}"
        );
    }
}

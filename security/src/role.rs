//! The role a certificate holder plays in the cluster.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// What a certificate holder is allowed to be: a ResourceManager replica, a NodeManager or a
/// human or application user.
///
/// The role travels in the certificate subject's organizational unit (see [`crate::pki`]) and is
/// what [`crate::Authorizer`] checks each endpoint against. Its string forms are the lower-case
/// words `resourcemanager`, `nodemanager` and `user`, used on the command line, in file names and
/// in certificates alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// A ResourceManager replica (RM to RM Raft traffic, RM to NM calls).
    ResourceManager,
    /// A NodeManager (heartbeats to the RM, AMRMProxy traffic).
    NodeManager,
    /// A user or an application acting for a user (client and admin protocols).
    User,
}

impl Role {
    /// Every role, in declaration order.
    pub const ALL: [Role; 3] = [Role::ResourceManager, Role::NodeManager, Role::User];

    /// The role's canonical lower-case name, as written in certificates and file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::ResourceManager => "resourcemanager",
            Role::NodeManager => "nodemanager",
            Role::User => "user",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = Error;

    /// Parses the canonical name exactly (case-sensitive, as certificates carry it).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownRole`] naming the value and the accepted names.
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|role| role.as_str() == value)
            .ok_or_else(|| Error::UnknownRole {
                value: value.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_from_str_round_trip() {
        for role in Role::ALL {
            assert_eq!(role.to_string().parse::<Role>().unwrap(), role);
        }
        assert_eq!("nodemanager".parse::<Role>().unwrap(), Role::NodeManager);
    }

    #[test]
    fn unknown_role_is_named_in_the_error() {
        let err = "NodeManager".parse::<Role>().unwrap_err();
        assert!(matches!(&err, Error::UnknownRole { value } if value == "NodeManager"));
        assert!(err.to_string().contains("NodeManager"), "{err}");
    }
}

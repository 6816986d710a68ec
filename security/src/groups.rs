//! [`Groups`]: a user's groups for ACL checks, as Hadoop's `Groups` service finds them.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use yarn_conf::keys::{
    HADOOP_SECURITY_GROUP_MAPPING, HADOOP_SECURITY_GROUPS_CACHE_SECS,
    HADOOP_SECURITY_GROUPS_NEGATIVE_CACHE_SECS, HADOOP_USER_GROUP_STATIC_MAPPING_OVERRIDES,
};
use yarn_conf::{ConfError, Configuration};

use crate::GroupMapping;

/// The groups of users, from `hadoop.user.group.static.mapping.overrides` first and the
/// configured [`GroupMapping`] otherwise, remembered for `hadoop.security.groups.cache.secs`
/// (users with no group for `hadoop.security.groups.negative-cache.secs`).
///
/// Guarantees: an overridden user never reaches the mapping; a change to a user's groups on the
/// host is seen at the latest one cache period later. Clones share one cache.
#[derive(Clone)]
pub struct Groups {
    mapping: GroupMapping,
    overrides: Arc<BTreeMap<String, Vec<String>>>,
    ttl: Duration,
    negative_ttl: Duration,
    cache: Arc<Mutex<HashMap<String, Cached>>>,
}

struct Cached {
    groups: Vec<String>,
    until: Instant,
}

impl Groups {
    /// Groups from `mapping`, with `overrides` ahead of it and the given cache periods.
    pub fn new(
        mapping: GroupMapping,
        overrides: BTreeMap<String, Vec<String>>,
        ttl: Duration,
        negative_ttl: Duration,
    ) -> Self {
        Self {
            mapping,
            overrides: Arc::new(overrides),
            ttl,
            negative_ttl,
            cache: Arc::default(),
        }
    }

    /// Groups as the four `hadoop.security.group*` / `hadoop.user.group*` keys configure them.
    ///
    /// # Errors
    ///
    /// A [`ConfError`] naming the key, its value and where it was set, for a mapping class that
    /// is not built in, an override entry without `=` or without a user, or a cache period that
    /// is not a whole number of seconds.
    pub fn from_conf(conf: &Configuration) -> Result<Self, ConfError> {
        let class = conf.get_string(&HADOOP_SECURITY_GROUP_MAPPING)?;
        let mapping = GroupMapping::from_class_name(&class).ok_or_else(|| {
            let supported: Vec<&str> = GroupMapping::supported_class_names().collect();
            conf.invalid_value(
                &HADOOP_SECURITY_GROUP_MAPPING,
                &class,
                format!("one of {}", supported.join(", ")),
            )
        })?;
        let value = conf.get_string(&HADOOP_USER_GROUP_STATIC_MAPPING_OVERRIDES)?;
        let overrides = parse_overrides(&value).map_err(|entry| {
            conf.invalid_value(
                &HADOOP_USER_GROUP_STATIC_MAPPING_OVERRIDES,
                &value,
                format!("entries of the form user=group1,group2 separated by ';', not {entry:?}"),
            )
        })?;
        Ok(Self::new(
            mapping,
            overrides,
            conf.get_duration(&HADOOP_SECURITY_GROUPS_CACHE_SECS)?,
            conf.get_duration(&HADOOP_SECURITY_GROUPS_NEGATIVE_CACHE_SECS)?,
        ))
    }

    /// Only the fixed `overrides`; every other user has no group. For tests and tools that must
    /// not depend on the host's users.
    pub fn fixed(overrides: BTreeMap<String, Vec<String>>) -> Self {
        Self::new(
            GroupMapping::Null,
            overrides,
            Duration::ZERO,
            Duration::ZERO,
        )
    }

    /// [`groups_of`](Self::groups_of) for async callers: on a blocking thread when the mapping
    /// must be asked (the host's name service may block), at once when the answer is fixed (an
    /// overridden user, or the null mapping), which keeps a deterministic simulation on its one
    /// thread. A lookup that panicked counts as no groups, so ACLs fail closed.
    pub async fn lookup(&self, user: &str) -> Vec<String> {
        if self.overrides.contains_key(user) || self.mapping == GroupMapping::Null {
            return self.groups_of(user);
        }
        let (groups, user) = (self.clone(), user.to_owned());
        tokio::task::spawn_blocking(move || groups.groups_of(&user))
            .await
            .unwrap_or_default()
    }

    /// The groups of `user`, primary group first. Asking the mapping may block on the host's
    /// name service when the answer is not cached.
    pub fn groups_of(&self, user: &str) -> Vec<String> {
        if let Some(groups) = self.overrides.get(user) {
            return groups.clone();
        }
        let now = Instant::now();
        {
            let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(cached) = cache.get(user).filter(|cached| cached.until > now) {
                return cached.groups.clone();
            }
        }
        // Looked up without the lock, so one slow lookup does not hold up other users'.
        let groups = self.mapping.groups_of(user);
        let ttl = if groups.is_empty() {
            self.negative_ttl
        } else {
            self.ttl
        };
        if !ttl.is_zero() {
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            cache.retain(|_, cached| cached.until > now);
            cache.insert(
                user.to_string(),
                Cached {
                    groups: groups.clone(),
                    until: now + ttl,
                },
            );
        }
        groups
    }
}

/// Compares configuration, not what the caches hold.
impl PartialEq for Groups {
    fn eq(&self, other: &Self) -> bool {
        self.mapping == other.mapping
            && self.overrides == other.overrides
            && self.ttl == other.ttl
            && self.negative_ttl == other.negative_ttl
    }
}

impl fmt::Debug for Groups {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Groups")
            .field("mapping", &self.mapping)
            .field("overrides", &self.overrides)
            .field("ttl", &self.ttl)
            .field("negative_ttl", &self.negative_ttl)
            .finish_non_exhaustive()
    }
}

/// Parses Hadoop's override syntax `user=group1,group2;user2=;`: entries separated by `;`,
/// blank entries ignored, names trimmed, empty group names dropped. The error is the first
/// entry without `=` or without a user.
fn parse_overrides(value: &str) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut overrides = BTreeMap::new();
    for entry in value
        .split(';')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
    {
        let (user, groups) = entry
            .split_once('=')
            .filter(|(user, _)| !user.trim().is_empty())
            .ok_or_else(|| entry.to_string())?;
        let groups = groups
            .split(',')
            .map(str::trim)
            .filter(|group| !group.is_empty())
            .map(str::to_string)
            .collect();
        overrides.insert(user.trim().to_string(), groups);
    }
    Ok(overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(pairs: &[(&str, &str)]) -> Configuration {
        let mut conf = Configuration::new();
        for (name, value) in pairs {
            conf.set(name, value);
        }
        conf
    }

    #[test]
    fn overrides_come_before_the_mapping() {
        let groups = Groups::from_conf(&conf(&[(
            "hadoop.user.group.static.mapping.overrides",
            " alice = analysts, ops ;root=;;dr.who=",
        )]))
        .unwrap();
        assert_eq!(groups.groups_of("alice"), ["analysts", "ops"]);
        assert!(
            groups.groups_of("root").is_empty(),
            "an override with no groups hides the host's groups of root"
        );
        assert!(groups.groups_of("dr.who").is_empty());
    }

    #[test]
    fn defaults_ask_the_host_and_keep_hadoops_dr_who_override() {
        let groups = Groups::from_conf(&Configuration::new()).unwrap();
        assert_eq!(groups.mapping, GroupMapping::Unix);
        assert_eq!(groups.ttl, Duration::from_secs(300));
        assert_eq!(groups.negative_ttl, Duration::from_secs(30));
        assert_eq!(groups.overrides.get("dr.who"), Some(&Vec::new()));
        assert_eq!(
            groups.groups_of("root").first().map(String::as_str),
            Some("root")
        );
    }

    #[test]
    fn a_malformed_override_or_mapping_is_refused_naming_the_key_and_entry() {
        for bad in ["alice", "=ops", "alice=ops;bob"] {
            let err = Groups::from_conf(&conf(&[(
                "hadoop.user.group.static.mapping.overrides",
                bad,
            )]))
            .unwrap_err()
            .to_string();
            assert!(
                err.contains("hadoop.user.group.static.mapping.overrides"),
                "{err}"
            );
            assert!(err.contains("user=group1,group2"), "{err}");
        }
        let err = Groups::from_conf(&conf(&[("hadoop.security.group.mapping", "Ldap")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"Ldap\""), "{err}");
        assert!(err.contains("ShellBasedUnixGroupsMapping"), "{err}");
        let err = Groups::from_conf(&conf(&[("hadoop.security.groups.cache.secs", "5m")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("hadoop.security.groups.cache.secs"), "{err}");
    }

    #[test]
    fn answers_are_cached_and_clones_share_the_cache() {
        let groups = Groups::new(
            GroupMapping::Unix,
            BTreeMap::new(),
            Duration::from_secs(300),
            Duration::from_secs(30),
        );
        let found = groups.groups_of("root");
        assert!(!found.is_empty());
        let clone = groups.clone();
        let cache = clone.cache.lock().unwrap();
        assert_eq!(cache.get("root").map(|cached| &cached.groups), Some(&found));
        drop(cache);
        assert!(groups.groups_of("no-such-user-yarn-ha").is_empty());
        assert!(
            clone
                .cache
                .lock()
                .unwrap()
                .contains_key("no-such-user-yarn-ha"),
            "an unknown user is remembered for the negative period"
        );
        assert_eq!(groups, clone);
    }
}

//! [`GroupMapping`]: where a user's groups come from (`hadoop.security.group.mapping`).

use std::ffi::{CStr, CString};

/// The Hadoop class names that ask the operating system. Hadoop's JNI mapping calls
/// `getgrouplist`, and its shell mapping runs `id`; both read the host's name service, which is
/// what [`GroupMapping::Unix`] does in-process.
const UNIX_MAPPINGS: [&str; 3] = [
    "org.apache.hadoop.security.JniBasedUnixGroupsMappingWithFallback",
    "org.apache.hadoop.security.JniBasedUnixGroupsMapping",
    "org.apache.hadoop.security.ShellBasedUnixGroupsMapping",
];
const NULL_MAPPING: &str = "org.apache.hadoop.security.NullGroupsMapping";

/// How a user name is turned into group names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupMapping {
    /// The host's user and group databases (`/etc/group`, or whatever the name service switch
    /// is configured with): the user's primary group first, then the rest in the order the
    /// system gives them.
    Unix,
    /// No user belongs to any group.
    Null,
}

impl GroupMapping {
    /// The mapping a Hadoop class name stands for; `None` for any class not built in (LDAP,
    /// composite and rule-based mappings).
    pub fn from_class_name(class: &str) -> Option<Self> {
        let class = class.trim();
        if UNIX_MAPPINGS.contains(&class) {
            Some(Self::Unix)
        } else if class == NULL_MAPPING {
            Some(Self::Null)
        } else {
            None
        }
    }

    /// Every class name [`from_class_name`](Self::from_class_name) accepts, for messages.
    pub fn supported_class_names() -> impl Iterator<Item = &'static str> {
        UNIX_MAPPINGS.into_iter().chain([NULL_MAPPING])
    }

    /// The groups of `user`; empty when the user is unknown to the mapping. May block on the
    /// host's name service (a directory lookup, for instance), so callers cache the answer.
    pub fn groups_of(self, user: &str) -> Vec<String> {
        match self {
            Self::Unix => unix_groups(user),
            Self::Null => Vec::new(),
        }
    }
}

/// The size of the first buffer for `getpwnam_r` and `getgrgid_r`; doubled on `ERANGE`.
const FIRST_BUFFER: usize = 1024;
/// No user database entry is allowed a buffer beyond this.
const LARGEST_BUFFER: usize = 1 << 20;

fn unix_groups(user: &str) -> Vec<String> {
    let Ok(name) = CString::new(user) else {
        return Vec::new();
    };
    let Some(primary) = primary_gid(&name) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for gid in group_ids(&name, primary) {
        if let Some(group) = group_name(gid)
            && !names.contains(&group)
        {
            names.push(group);
        }
    }
    names
}

fn primary_gid(name: &CStr) -> Option<libc::gid_t> {
    with_growing_buffer(|buffer| {
        // SAFETY: an all-zero passwd is a valid value (null pointers, zero ids) that
        // getpwnam_r overwrites; `buffer` outlives the call and its length is passed with it.
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let status = unsafe {
            libc::getpwnam_r(
                name.as_ptr(),
                &mut entry,
                buffer.as_mut_ptr(),
                buffer.len(),
                &mut found,
            )
        };
        (status, (!found.is_null()).then_some(entry.pw_gid))
    })
}

fn group_ids(name: &CStr, primary: libc::gid_t) -> Vec<libc::gid_t> {
    let mut count: libc::c_int = 16;
    loop {
        let mut gids = vec![0 as libc::gid_t; usize::try_from(count).unwrap_or(0)];
        // SAFETY: `gids` holds `count` entries; getgrouplist writes at most that many and sets
        // `count` to how many the user has, returning -1 when they do not fit.
        let status =
            unsafe { libc::getgrouplist(name.as_ptr(), primary, gids.as_mut_ptr(), &mut count) };
        if status >= 0 {
            gids.truncate(usize::try_from(count).unwrap_or(0));
            // The primary group leads, as in Hadoop's answer.
            gids.retain(|gid| *gid != primary);
            gids.insert(0, primary);
            return gids;
        }
        if usize::try_from(count).unwrap_or(0) <= gids.len() {
            // Some C libraries do not report the size they need: grow by doubling.
            count = count.saturating_mul(2);
        }
        if count > 65_536 {
            return vec![primary];
        }
    }
}

fn group_name(gid: libc::gid_t) -> Option<String> {
    with_growing_buffer(|buffer| {
        // SAFETY: as in `primary_gid`, for the group database.
        let mut entry: libc::group = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::group = std::ptr::null_mut();
        let status = unsafe {
            libc::getgrgid_r(
                gid,
                &mut entry,
                buffer.as_mut_ptr(),
                buffer.len(),
                &mut found,
            )
        };
        if status != 0 || found.is_null() || entry.gr_name.is_null() {
            return (status, None);
        }
        // SAFETY: on success gr_name points at a NUL-terminated string inside `buffer`.
        let name = unsafe { CStr::from_ptr(entry.gr_name) };
        (status, Some(name.to_string_lossy().into_owned()))
    })
}

/// Runs a reentrant database lookup (`lookup` returns its status and answer) with a buffer
/// doubled for as long as the lookup reports `ERANGE`, up to [`LARGEST_BUFFER`].
fn with_growing_buffer<T>(
    mut lookup: impl FnMut(&mut [libc::c_char]) -> (libc::c_int, Option<T>),
) -> Option<T> {
    let mut buffer = vec![0 as libc::c_char; FIRST_BUFFER];
    loop {
        let (status, answer) = lookup(&mut buffer);
        if status == libc::ERANGE && buffer.len() < LARGEST_BUFFER {
            buffer.resize(buffer.len() * 2, 0);
            continue;
        }
        return answer.filter(|_| status == 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hadoop_unix_and_null_classes_are_known_and_others_are_not() {
        for class in UNIX_MAPPINGS {
            assert_eq!(
                GroupMapping::from_class_name(class),
                Some(GroupMapping::Unix)
            );
        }
        assert_eq!(
            GroupMapping::from_class_name(NULL_MAPPING),
            Some(GroupMapping::Null)
        );
        assert_eq!(
            GroupMapping::from_class_name("org.apache.hadoop.security.LdapGroupsMapping"),
            None
        );
        assert_eq!(GroupMapping::supported_class_names().count(), 4);
    }

    #[test]
    fn the_unix_mapping_puts_a_users_primary_group_first() {
        // Every Linux host has root, whose primary group (gid 0) is named root.
        let groups = GroupMapping::Unix.groups_of("root");
        assert_eq!(
            groups.first().map(String::as_str),
            Some("root"),
            "{groups:?}"
        );
        let mut unique = groups.clone();
        unique.dedup();
        assert_eq!(unique.len(), groups.len(), "no group twice: {groups:?}");
    }

    #[test]
    fn unknown_users_and_the_null_mapping_have_no_groups() {
        assert!(
            GroupMapping::Unix
                .groups_of("no-such-user-yarn-ha")
                .is_empty()
        );
        assert!(GroupMapping::Unix.groups_of("nul\0byte").is_empty());
        assert!(GroupMapping::Null.groups_of("root").is_empty());
    }
}

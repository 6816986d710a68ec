//! Where a name inside a directory may lead: the check behind link names and archive entries.

use std::path::{Component, Path, PathBuf};

/// `name` as a path of plain names below some directory, or `None` when it could leave it or
/// names the directory itself: an absolute name, a `..` component, or nothing but `.`.
///
/// `.` components are dropped (tar archives often name their entries `./a/b`).
pub(crate) fn contained_path(name: &Path) -> Option<PathBuf> {
    let mut contained = PathBuf::new();
    for component in name.components() {
        match component {
            Component::Normal(part) => contained.push(part),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) | Component::ParentDir => return None,
        }
    }
    (!contained.as_os_str().is_empty()).then_some(contained)
}

/// Whether `name` names the directory itself (`.`, `./`), as the first entry of an archive
/// made with `tar -C dir .` does: such an entry is skipped, not refused.
pub(crate) fn names_root(name: &Path) -> bool {
    name.components()
        .all(|component| component == Component::CurDir)
}

/// Whether a symbolic link at `entry` (a [`contained_path`]) pointing to `target` resolves
/// below the same directory, judged from the names alone: `target` is relative and its `..`
/// components never climb above that directory. The names are all that can be judged before
/// anything is written; resolving through links unpacked earlier is then safe because every
/// one of them passed this check too.
pub(crate) fn link_target_inside(entry: &Path, target: &Path) -> bool {
    let mut depth = entry
        .parent()
        .map_or(0, |parent| parent.components().count());
    for component in target.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_stay_and_dots_are_dropped() {
        assert_eq!(
            contained_path(Path::new("a/b.jar")),
            Some(PathBuf::from("a/b.jar"))
        );
        assert_eq!(
            contained_path(Path::new("./a//b/")),
            Some(PathBuf::from("a/b"))
        );
    }

    #[test]
    fn names_that_leave_or_name_the_directory_are_refused() {
        for name in [
            "",
            ".",
            "./",
            "/etc/passwd",
            "..",
            "../x",
            "a/../../x",
            "a/../b",
        ] {
            assert_eq!(contained_path(Path::new(name)), None, "{name:?}");
        }
    }

    #[test]
    fn only_dots_name_the_root() {
        assert!(names_root(Path::new(".")));
        assert!(names_root(Path::new("./")));
        assert!(!names_root(Path::new("./a")));
        assert!(!names_root(Path::new("..")));
    }

    #[test]
    fn link_targets_may_not_climb_above_the_directory() {
        let entry = Path::new("lib/current");
        assert!(link_target_inside(entry, Path::new("v1/a.jar")));
        assert!(link_target_inside(entry, Path::new("../bin/run")));
        assert!(link_target_inside(Path::new("top"), Path::new("./other")));
        assert!(!link_target_inside(entry, Path::new("../../etc")));
        assert!(!link_target_inside(Path::new("top"), Path::new("..")));
        assert!(!link_target_inside(entry, Path::new("/etc/passwd")));
        assert!(!link_target_inside(entry, Path::new("a/../../../x")));
    }
}

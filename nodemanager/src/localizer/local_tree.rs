//! Copying a source into the cache and sealing the copy: the filesystem walks of
//! localization. Blocking: run on a blocking thread.

use std::fs::{self, Permissions};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::{LocalizationError, ResourceVisibility};

/// Copies the directory `source` to `dest` with everything in it.
///
/// # Errors
///
/// [`LocalizationError::UnsupportedEntry`] for a symbolic link or special file inside
/// `source`: following a link could copy what the application never meant to ship, or loop;
/// the read and write errors otherwise.
pub(super) fn copy_dir(link: &str, source: &Path, dest: &Path) -> Result<(), LocalizationError> {
    fs::create_dir(dest).map_err(|err| LocalizationError::write(link, dest, err))?;
    let entries =
        fs::read_dir(source).map_err(|err| LocalizationError::unreadable(link, source, err))?;
    for entry in entries {
        let entry = entry.map_err(|err| LocalizationError::unreadable(link, source, err))?;
        let from = entry.path();
        let to = dest.join(entry.file_name());
        let file_type = entry
            .file_type()
            .map_err(|err| LocalizationError::unreadable(link, &from, err))?;
        if file_type.is_dir() {
            copy_dir(link, &from, &to)?;
        } else if file_type.is_file() {
            copy_file(link, &from, &to)?;
        } else {
            return Err(LocalizationError::UnsupportedEntry {
                link: link.to_owned(),
                entry: from.display().to_string(),
                kind: "symbolic link or special file inside a directory resource",
            });
        }
    }
    Ok(())
}

/// Copies the file `source` to `dest`.
///
/// # Errors
///
/// The read error as [`LocalizationError::SourceUnreadable`] (or `SourceMissing`), a write
/// error as [`LocalizationError::Write`].
pub(super) fn copy_file(link: &str, source: &Path, dest: &Path) -> Result<(), LocalizationError> {
    let mut from =
        fs::File::open(source).map_err(|err| LocalizationError::unreadable(link, source, err))?;
    copy_from(link, &mut from, dest)
}

/// Copies what `from` holds, from its current position, to a new file `dest`.
///
/// # Errors
///
/// A read or write error as [`LocalizationError::Write`].
pub(super) fn copy_from(
    link: &str,
    from: &mut fs::File,
    dest: &Path,
) -> Result<(), LocalizationError> {
    let mut to = fs::File::create(dest).map_err(|err| LocalizationError::write(link, dest, err))?;
    std::io::copy(from, &mut to).map_err(|err| LocalizationError::write(link, dest, err))?;
    Ok(())
}

/// Gives the copy at `path` Hadoop's cache permissions, so that containers sharing it cannot
/// change it: directories 0755 (PUBLIC) or 0700, files 0555 (PUBLIC) or 0500. Symbolic links
/// are not followed, and each must resolve inside `root` (the real path of the copy's top):
/// the last guard against links that reach out of an archive through other links.
///
/// # Errors
///
/// [`LocalizationError::EntryOutside`] for a link resolving outside (or nowhere),
/// [`LocalizationError::Write`] for a failed change.
pub(super) fn seal(
    link: &str,
    root: &Path,
    path: &Path,
    visibility: ResourceVisibility,
) -> Result<(), LocalizationError> {
    let metadata =
        fs::symlink_metadata(path).map_err(|err| LocalizationError::write(link, path, err))?;
    let public = visibility == ResourceVisibility::Public;
    if metadata.file_type().is_symlink() {
        let resolves_inside = path
            .canonicalize()
            .is_ok_and(|target| target.starts_with(root));
        if !resolves_inside {
            return Err(LocalizationError::EntryOutside {
                link: link.to_owned(),
                entry: path
                    .strip_prefix(root)
                    .unwrap_or(path)
                    .display()
                    .to_string(),
                target: fs::read_link(path)
                    .ok()
                    .map(|target| target.display().to_string()),
            });
        }
        return Ok(());
    }
    let mode = match (metadata.is_dir(), public) {
        (true, true) => 0o755,
        (true, false) => 0o700,
        (false, true) => 0o555,
        (false, false) => 0o500,
    };
    fs::set_permissions(path, Permissions::from_mode(mode))
        .map_err(|err| LocalizationError::write(link, path, err))?;
    if metadata.is_dir() {
        let entries =
            fs::read_dir(path).map_err(|err| LocalizationError::write(link, path, err))?;
        for entry in entries {
            let entry = entry.map_err(|err| LocalizationError::write(link, path, err))?;
            seal(link, root, &entry.path(), visibility)?;
        }
    }
    Ok(())
}

/// Whether everyone may read `path` as Hadoop requires of a PUBLIC resource: readable by
/// others (a directory also searchable by others, and everything in it likewise), and every
/// directory above it searchable by others.
///
/// # Errors
///
/// The error reading a file's or a directory's status.
pub(super) fn is_public(path: &Path, metadata: &fs::Metadata) -> std::io::Result<bool> {
    // A file's own mode is read from the handle it is copied from (`metadata`), not looked up
    // again by path; a directory's entries are read by path.
    let readable = if metadata.is_dir() {
        readable_by_others(path)?
    } else {
        metadata.permissions().mode() & 0o004 != 0
    };
    Ok(readable && ancestors_searchable_by_others(path)?)
}

fn readable_by_others(path: &Path) -> std::io::Result<bool> {
    let metadata = fs::metadata(path)?;
    let mode = metadata.permissions().mode();
    if !metadata.is_dir() {
        return Ok(mode & 0o004 != 0);
    }
    if mode & 0o005 != 0o005 {
        return Ok(false);
    }
    for entry in fs::read_dir(path)? {
        if !readable_by_others(&entry?.path())? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn ancestors_searchable_by_others(path: &Path) -> std::io::Result<bool> {
    for ancestor in path
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
    {
        if fs::metadata(ancestor)?.permissions().mode() & 0o001 == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

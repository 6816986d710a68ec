//! Unpacking zip, jar and tar archives into a directory, refusing every entry that would
//! reach outside it. Blocking: run on a blocking thread.

use std::fs::{self, File};
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use regex::Regex;
use tar::EntryType;
use zip::ZipArchive;

use super::LocalizationError;
use super::entry_path::{contained_path, link_target_inside, names_root};

/// Linux's PATH_MAX: the longest symbolic link target read from an archive.
const MAX_LINK_TARGET: u64 = 4096;

/// Unpacks the zip or jar `archive`, read from `file` (the source as it was opened and checked;
/// `archive` names it in messages), into the existing directory `dest`: every entry, or with
/// `only` the files and symbolic links whose whole name matches it (PATTERN, as Hadoop's
/// `RunJar.unJar` filters entries; directories are then created only as needed).
///
/// # Errors
///
/// [`LocalizationError::EntryOutside`] for an entry whose name, or a symbolic link whose
/// target, leaves `dest`; [`LocalizationError::CorruptArchive`] for an unreadable archive;
/// [`LocalizationError::Write`] for a failed write.
pub(super) fn unzip(
    link: &str,
    archive: &Path,
    file: File,
    dest: &Path,
    only: Option<&Regex>,
) -> Result<(), LocalizationError> {
    let unreadable = |err: zip::result::ZipError| corrupt(link, archive, &err);
    let mut zip = ZipArchive::new(BufReader::new(file)).map_err(unreadable)?;
    let real_dest = real_path(link, dest)?;
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(unreadable)?;
        let name = entry.name().to_owned();
        if names_root(Path::new(&name)) {
            continue;
        }
        let relative = contained(link, &name)?;
        if entry.is_dir() {
            if only.is_none() {
                let dir = dest.join(&relative);
                fs::create_dir_all(&dir)
                    .map_err(|source| LocalizationError::write(link, &dir, source))?;
            }
            continue;
        }
        if only.is_some_and(|regex| !regex.is_match(&name)) {
            continue;
        }
        let target = if entry.is_symlink() {
            // A link's target is a path: at most PATH_MAX bytes are read, whatever the archive
            // claims, so a crafted entry cannot make the NodeManager hold a huge string.
            let mut target = String::new();
            std::io::Read::take(&mut entry, MAX_LINK_TARGET)
                .read_to_string(&mut target)
                .map_err(|err| corrupt(link, archive, &err))?;
            Some(target)
        } else {
            None
        };
        let path = inside_parent(link, dest, &real_dest, &relative, &name, target.as_deref())?;
        remove_link(link, &path)?;
        match target {
            Some(target) => std::os::unix::fs::symlink(&target, &path),
            None => {
                File::create(&path).and_then(|mut file| io::copy(&mut entry, &mut file).map(drop))
            }
        }
        .map_err(|source| LocalizationError::write(link, &path, source))?;
    }
    Ok(())
}

/// Unpacks the tar `archive` (gzip-compressed when `gzipped`), read from `file` as for
/// [`unzip`], into the existing directory `dest`: directories, regular files, and symbolic and hard links that stay inside it.
///
/// # Errors
///
/// [`LocalizationError::EntryOutside`] for an entry whose name or link target leaves `dest`;
/// [`LocalizationError::UnsupportedEntry`] for devices and FIFOs;
/// [`LocalizationError::CorruptArchive`] for an unreadable archive;
/// [`LocalizationError::Write`] for a failed write.
pub(super) fn untar(
    link: &str,
    archive: &Path,
    file: File,
    dest: &Path,
    gzipped: bool,
) -> Result<(), LocalizationError> {
    let reader: Box<dyn Read> = if gzipped {
        Box::new(GzDecoder::new(BufReader::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    let mut tar = tar::Archive::new(reader);
    let real_dest = real_path(link, dest)?;
    for entry in tar.entries().map_err(|err| corrupt(link, archive, &err))? {
        let mut entry = entry.map_err(|err| corrupt(link, archive, &err))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() || names_root(Path::new(&name)) {
            continue;
        }
        let relative = contained(link, &name)?;
        let target = || {
            entry
                .link_name_bytes()
                .map(|target| String::from_utf8_lossy(&target).into_owned())
                .unwrap_or_default()
        };
        match kind {
            EntryType::Regular | EntryType::Continuous | EntryType::Directory => {}
            EntryType::Symlink => {
                inside_parent(link, dest, &real_dest, &relative, &name, Some(&target()))?;
            }
            // A hard link's target is another entry, named from the archive's root.
            EntryType::Link => {
                let target = target();
                if contained_path(Path::new(&target)).is_none() {
                    return Err(LocalizationError::EntryOutside {
                        link: link.to_owned(),
                        entry: name,
                        target: Some(target),
                    });
                }
            }
            _ => {
                return Err(LocalizationError::UnsupportedEntry {
                    link: link.to_owned(),
                    entry: name,
                    kind: "special file (device, FIFO or unknown tar entry type)",
                });
            }
        }
        // unpack_in also refuses to write through a parent that resolves outside `dest`.
        let unpacked = entry
            .unpack_in(dest)
            .map_err(|source| LocalizationError::write(link, &dest.join(&relative), source))?;
        if !unpacked {
            return Err(LocalizationError::EntryOutside {
                link: link.to_owned(),
                entry: name,
                target: None,
            });
        }
    }
    Ok(())
}

/// Where an entry at `relative` is written: below its parent directory, created and resolved
/// (through links unpacked before it), which must still lie inside `real_dest`; a symbolic
/// link's `target` must then resolve inside too, judged from that real parent.
fn inside_parent(
    link: &str,
    dest: &Path,
    real_dest: &Path,
    relative: &Path,
    name: &str,
    target: Option<&str>,
) -> Result<PathBuf, LocalizationError> {
    let outside = || LocalizationError::EntryOutside {
        link: link.to_owned(),
        entry: name.to_owned(),
        target: target.map(str::to_owned),
    };
    let parent = dest.join(relative.parent().unwrap_or(Path::new("")));
    fs::create_dir_all(&parent)
        .map_err(|source| LocalizationError::write(link, &parent, source))?;
    let real_parent = real_path(link, &parent)?;
    let below = real_parent.strip_prefix(real_dest).map_err(|_| outside())?;
    let file_name = relative.file_name().ok_or_else(outside)?;
    if let Some(target) = target
        && !link_target_inside(&below.join(file_name), Path::new(target))
    {
        return Err(outside());
    }
    Ok(real_parent.join(file_name))
}

/// `name` as a path below the archive's directory.
fn contained(link: &str, name: &str) -> Result<PathBuf, LocalizationError> {
    contained_path(Path::new(name)).ok_or_else(|| LocalizationError::EntryOutside {
        link: link.to_owned(),
        entry: name.to_owned(),
        target: None,
    })
}

/// Removes a symbolic link an earlier entry of the same name left, so that the entry's file
/// is written in its place rather than through it.
fn remove_link(link: &str, path: &Path) -> Result<(), LocalizationError> {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            fs::remove_file(path).map_err(|source| LocalizationError::write(link, path, source))
        }
        _ => Ok(()),
    }
}

fn real_path(link: &str, path: &Path) -> Result<PathBuf, LocalizationError> {
    path.canonicalize()
        .map_err(|source| LocalizationError::write(link, path, source))
}

fn corrupt(link: &str, path: &Path, err: &dyn std::fmt::Display) -> LocalizationError {
    LocalizationError::CorruptArchive {
        link: link.to_owned(),
        path: path.to_owned(),
        reason: err.to_string(),
    }
}

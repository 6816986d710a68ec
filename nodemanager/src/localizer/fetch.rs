//! Localizing one resource into its cache entry: the blocking half of the localizer, after
//! Hadoop's `FSDownload`.

use std::fs::{self, File};
use std::io::{self, Seek, SeekFrom};

use super::local_tree::{copy_dir, copy_from, is_public, seal};
use super::unpacking::{ArchiveFormat, Unpacking};
use super::{
    LocalResource, LocalizationError, ResourcePlan, ResourceVisibility, SourceStat, archive_unpack,
};

/// Makes `plan`'s cache entry exist: reuses it when it is already there (`Ok(false)`),
/// otherwise checks and copies or unpacks `resource` into it (`Ok(true)`).
///
/// The caller holds the entry's lock, so nobody else writes the entry meanwhile. The copy is
/// made in a staging directory and renamed into place only when complete and sealed, so an
/// entry that exists is always whole, also after a crash.
///
/// # Errors
///
/// Those of the checks ([`SourceStat::check`], [`LocalizationError::NotPublic`],
/// [`Unpacking::choose`]) and of the copy or unpacking; the staging directory is removed.
pub(super) fn fetch_once(
    plan: &ResourcePlan,
    resource: &LocalResource,
) -> Result<bool, LocalizationError> {
    if fs::symlink_metadata(plan.localized()).is_ok() {
        return Ok(false);
    }
    let link = plan.link.as_str();
    let source = &plan.source;
    // The source is opened once: what is checked (time, size, mode) is read from that handle,
    // and a file is copied or unpacked from it, so swapping the path for another file after
    // the checks changes nothing. A directory's entries are still read by path.
    let opened =
        File::open(source).map_err(|err| LocalizationError::unreadable(link, source, err))?;
    let metadata = opened
        .metadata()
        .map_err(|err| LocalizationError::unreadable(link, source, err))?;
    let stat = SourceStat::of(&metadata);
    stat.check(link, source, resource)?;
    if resource.visibility == ResourceVisibility::Public
        && !is_public(source, &metadata)
            .map_err(|err| LocalizationError::unreadable(link, source, err))?
    {
        return Err(LocalizationError::NotPublic {
            link: link.to_owned(),
            path: source.clone(),
        });
    }
    let unpacking = Unpacking::choose(
        link,
        resource.resource_type,
        &plan.file_name,
        &resource.pattern,
        stat.is_dir,
    )?;
    let staging = plan.staging_dir();
    // Left by a localization cut short by a crash: never a complete copy.
    match fs::remove_dir_all(&staging) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => {
            return Err(LocalizationError::write(link, &staging, err));
        }
        _ => {}
    }
    let made = make_copy(plan, resource, &unpacking, opened, stat.is_dir);
    if made.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    made.map(|()| true)
}

fn make_copy(
    plan: &ResourcePlan,
    resource: &LocalResource,
    unpacking: &Unpacking,
    mut opened: File,
    is_dir: bool,
) -> Result<(), LocalizationError> {
    let link = plan.link.as_str();
    let source = &plan.source;
    let staging = plan.staging_dir();
    fs::create_dir_all(&staging).map_err(|err| LocalizationError::write(link, &staging, err))?;
    let copy = staging.join(&plan.file_name);
    let create_dir = |dir: &std::path::Path| {
        fs::create_dir(dir).map_err(|err| LocalizationError::write(link, dir, err))
    };
    match unpacking {
        Unpacking::Copy if is_dir => copy_dir(link, source, &copy)?,
        Unpacking::Copy => copy_from(link, &mut opened, &copy)?,
        Unpacking::Unpack(format) => {
            create_dir(&copy)?;
            match format {
                ArchiveFormat::Zip => archive_unpack::unzip(link, source, opened, &copy, None)?,
                ArchiveFormat::Tar => archive_unpack::untar(link, source, opened, &copy, false)?,
                ArchiveFormat::TarGz => archive_unpack::untar(link, source, opened, &copy, true)?,
            }
        }
        // Hadoop's RunJar.unJarAndSave: the matching entries, and the jar itself beside them.
        Unpacking::UnpackMatching(regex) => {
            create_dir(&copy)?;
            let unreadable = |err| LocalizationError::unreadable(link, source, err);
            let for_unpacking = opened.try_clone().map_err(unreadable)?;
            archive_unpack::unzip(link, source, for_unpacking, &copy, Some(regex))?;
            opened.seek(SeekFrom::Start(0)).map_err(unreadable)?;
            copy_from(link, &mut opened, &copy.join(&plan.file_name))?;
        }
    }
    let root = copy
        .canonicalize()
        .map_err(|err| LocalizationError::write(link, &copy, err))?;
    seal(link, &root, &copy, resource.visibility)?;
    fs::rename(&staging, &plan.entry_dir)
        .map_err(|err| LocalizationError::write(link, &plan.entry_dir, err))
}

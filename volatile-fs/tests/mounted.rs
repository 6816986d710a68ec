//! The volatile file system mounted for real: files written through the kernel with std's
//! file API, and a power loss dropping exactly what was not fsync'd. (Replicas' sled stores on
//! it, SIGKILLed and powered off, are in the chaos harness's tests: sled syncs everything when
//! dropped, so only a killed process shows what a power loss takes.)
//!
//! Mounting needs root and /dev/fuse. Where the host lacks them (`cargo test` as a user), the
//! mount must fail with an error naming the directory and what is needed; where it has them (as
//! `.ci/run` runs) the mount must work.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use yarn_volatile_fs::{LostWrites, MountError, VolatileMount, can_mount};

/// Mounts on `dir`, or returns `None` after checking the refusal where the host cannot mount.
fn mount(dir: &Path) -> Option<VolatileMount> {
    match VolatileMount::mount(dir) {
        Ok(mount) => Some(mount),
        Err(err @ MountError::Mount { .. }) if !can_mount() => {
            let message = err.to_string();
            assert!(message.contains(&dir.display().to_string()), "{message}");
            assert!(message.contains("/dev/fuse"), "{message}");
            eprintln!("this host cannot mount FUSE file systems: {message}");
            None
        }
        Err(err) => panic!("{err}"),
    }
}

fn read(path: &Path) -> Vec<u8> {
    let mut data = Vec::new();
    File::open(path).unwrap().read_to_end(&mut data).unwrap();
    data
}

#[test]
fn a_power_loss_drops_exactly_what_was_not_fsynced() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mount) = mount(dir.path()) else {
        return;
    };
    let log = dir.path().join("log");
    let mut file = File::create(&log).unwrap();
    file.write_all(b"acknowledged ").unwrap();
    file.sync_data().unwrap();
    file.write_all(b"in the cache").unwrap();
    // Seen by every reader at once, and by a second handle.
    assert_eq!(read(&log), b"acknowledged in the cache");
    assert_eq!(mount.unsynced_bytes(), 12);

    let other = dir.path().join("never-synced");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(&other, b"gone").unwrap();
    drop(file);

    let lost = mount.power_loss();
    assert_eq!(
        lost,
        LostWrites {
            files: 2,
            bytes: 16
        }
    );
    assert_eq!(read(&log), b"acknowledged ");
    assert_eq!(std::fs::metadata(&log).unwrap().len(), 13);
    // Names are durable at once; the contents were not.
    assert_eq!(read(&other), b"");
    assert!(dir.path().join("sub").is_dir());

    // Overwrites in place, renames and removal behave as on any file system.
    let mut file = OpenOptions::new().write(true).open(&log).unwrap();
    file.seek(SeekFrom::Start(0)).unwrap();
    file.write_all(b"A").unwrap();
    file.sync_all().unwrap();
    file.set_len(4).unwrap();
    drop(file);
    std::fs::rename(&log, dir.path().join("sub/log")).unwrap();
    std::fs::remove_file(&other).unwrap();
    mount.power_loss();
    assert_eq!(read(&dir.path().join("sub/log")), b"Acknowledged ");
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["sub"]);
    mount.unmount().unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_listing_read_in_many_calls_skips_nothing_when_entries_go_between_calls() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mount) = mount(dir.path()) else {
        return;
    };
    // Far more than one getdents call returns (each FUSE reply holds about a page).
    let names: Vec<String> = (0..5_000).map(|i| format!("segment-{i:05}")).collect();
    for name in &names {
        File::create(dir.path().join(name)).unwrap();
    }
    let mut listing = std::fs::read_dir(dir.path()).unwrap();
    let mut seen: Vec<String> = listing
        .by_ref()
        .take(10)
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    // Remove what was already listed while the listing is open, as sled removes segments.
    for name in &seen {
        std::fs::remove_file(dir.path().join(name)).unwrap();
    }
    seen.extend(listing.map(|e| e.unwrap().file_name().into_string().unwrap()));
    seen.sort();
    assert_eq!(seen, names, "every entry exactly once");
    drop(mount);
}

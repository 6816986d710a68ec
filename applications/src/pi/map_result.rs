//! How a pi map task hands its count to the ApplicationMaster: a file `map-<index>` in a result
//! directory both can reach, holding `inside=<n> total=<n>`.
//!
//! The ApplicationMaster cannot read a NodeManager's log files, and a container's exit status
//! carries one byte, so the maps write into a directory on a file system every NodeManager
//! shares (as Hadoop's maps write to HDFS). On one machine, as in the minicluster, any local
//! directory is shared.

use std::path::{Path, PathBuf};

use crate::Error;

/// The file of map `index` in `dir`.
pub fn map_result_path(dir: &Path, index: u32) -> PathBuf {
    dir.join(format!("map-{index}"))
}

/// A map's count as one line: `inside=<n> total=<n>`.
pub fn format_map_result(inside: u64, total: u64) -> String {
    format!("inside={inside} total={total}")
}

/// Reads a line [`format_map_result`] wrote; `None` for anything else.
fn parse_map_result(text: &str) -> Option<(u64, u64)> {
    let (inside, total) = text.trim().split_once(' ')?;
    let inside = inside.strip_prefix("inside=")?.parse().ok()?;
    let total = total.strip_prefix("total=")?.parse().ok()?;
    Some((inside, total))
}

/// Writes map `index`'s count into `dir` atomically: into a temporary file first, renamed into
/// place, so the ApplicationMaster never reads half a file, and a map run twice (a second
/// application attempt) replaces the first result with the same one.
///
/// # Errors
///
/// [`Error::PiResultFile`] naming the file and what failed.
pub fn write_map_result(dir: &Path, index: u32, inside: u64, total: u64) -> Result<(), Error> {
    let path = map_result_path(dir, index);
    // The process id keeps two attempts of the same map from sharing a temporary file.
    let temporary = dir.join(format!(".map-{index}.{}.tmp", std::process::id()));
    let io_error = |operation: &'static str, path: &Path| {
        let path = path.to_owned();
        move |source| Error::PiResultFile {
            operation,
            path,
            source,
        }
    };
    std::fs::write(
        &temporary,
        format!("{}\n", format_map_result(inside, total)),
    )
    .map_err(io_error("writing", &temporary))?;
    std::fs::rename(&temporary, &path).map_err(io_error("renaming into place", &path))
}

/// The sums of the counts of maps `0..maps` in `dir`: `(inside, total)`.
///
/// # Errors
///
/// [`Error::PiResultFile`] for a file that cannot be read (a map that did not write one), and
/// [`Error::PiResultMalformed`] for one that holds something else than a count.
pub fn read_map_results(dir: &Path, maps: u32) -> Result<(u64, u64), Error> {
    let mut sums = (0u64, 0u64);
    for index in 0..maps {
        let path = map_result_path(dir, index);
        let text = std::fs::read_to_string(&path).map_err(|source| Error::PiResultFile {
            operation: "reading",
            path: path.clone(),
            source,
        })?;
        let (inside, total) = parse_map_result(&text)
            .filter(|(inside, total)| inside <= total)
            .ok_or_else(|| Error::PiResultMalformed {
                path,
                content: text.trim_end().to_owned(),
            })?;
        // The options bound maps × samples to a u64, so only foreign files could overflow.
        sums = (sums.0.saturating_add(inside), sums.1.saturating_add(total));
    }
    Ok(sums)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_written_by_the_maps_are_summed() {
        let dir = tempfile::tempdir().unwrap();
        write_map_result(dir.path(), 0, 780, 1000).unwrap();
        write_map_result(dir.path(), 1, 790, 1000).unwrap();
        write_map_result(dir.path(), 1, 790, 1000).unwrap();
        assert_eq!(read_map_results(dir.path(), 2).unwrap(), (1570, 2000));
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_missing_or_malformed_count_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        write_map_result(dir.path(), 0, 1, 2).unwrap();
        let missing = read_map_results(dir.path(), 2).unwrap_err();
        assert!(
            matches!(&missing, Error::PiResultFile { operation: "reading", path, .. }
                if *path == map_result_path(dir.path(), 1)),
            "{missing}"
        );
        std::fs::write(map_result_path(dir.path(), 1), "inside=5 total=2\n").unwrap();
        let malformed = read_map_results(dir.path(), 2).unwrap_err();
        assert_eq!(
            malformed.to_string(),
            format!(
                "pi map result file {} holds \"inside=5 total=2\": expected \"inside=<n> \
                 total=<n>\" with inside at most total",
                map_result_path(dir.path(), 1).display()
            )
        );
    }
}

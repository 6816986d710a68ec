//! [`ProcStat`]: the few fields of `/proc/<pid>/stat` the executor needs, with the parsing kept
//! apart from the reading so that it can be tested on sample text.

use std::collections::HashMap;
use std::path::Path;

/// A process as `/proc/<pid>/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcStat {
    /// The process id (field 1).
    pub(crate) pid: u32,
    /// The state letter (field 3): `R`, `S`, `D`, `Z` for a zombie, ...
    pub(crate) state: char,
    /// The process group id (field 5).
    pub(crate) pgrp: u32,
    /// Resident set size in pages (field 24).
    pub(crate) rss_pages: u64,
}

impl ProcStat {
    /// Parses the text of a `/proc/<pid>/stat` file; `None` when it is not in that format.
    ///
    /// The command name (field 2) sits in parentheses and may itself hold spaces and
    /// parentheses, so the fields after it are counted from the last `)`.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let (head, tail) = text.rsplit_once(')')?;
        let (pid, _comm) = head.split_once(" (")?;
        let fields: Vec<&str> = tail.split_whitespace().collect();
        let mut state = fields.first()?.chars();
        let state_letter = state.next()?;
        if state.next().is_some() {
            return None;
        }
        Some(Self {
            pid: pid.trim().parse().ok()?,
            state: state_letter,
            pgrp: fields.get(5 - 3)?.parse().ok()?,
            rss_pages: fields.get(24 - 3)?.parse().ok()?,
        })
    }

    /// Reads the process `pid`; `None` when it does not exist (any more) or its file does not
    /// parse.
    pub(crate) fn read(pid: u32) -> Option<Self> {
        Self::read_file(&Path::new("/proc").join(pid.to_string()).join("stat"))
    }

    /// Reads every process in `/proc`. Processes that end while the table is read are simply
    /// missing from it.
    pub(crate) fn read_all() -> Vec<Self> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                !name.is_empty() && name.bytes().all(|byte| byte.is_ascii_digit())
            })
            .filter_map(|entry| Self::read_file(&entry.path().join("stat")))
            .collect()
    }

    /// Whether the process has exited and only waits to be reaped.
    pub(crate) fn is_zombie(&self) -> bool {
        self.state == 'Z'
    }

    fn read_file(path: &Path) -> Option<Self> {
        Self::parse(&std::fs::read_to_string(path).ok()?)
    }
}

/// The resident memory of each process group, in bytes: the sum over its processes.
///
/// Pages shared between processes of a group (after a fork, say) count once per process, as
/// in YARN's procfs-based measurement, so the sum can exceed what the group really uses.
pub(crate) fn rss_bytes_by_group(processes: &[ProcStat], page_size: u64) -> HashMap<u32, u64> {
    let mut groups = HashMap::new();
    for process in processes {
        *groups.entry(process.pgrp).or_insert(0u64) += process.rss_pages.saturating_mul(page_size);
    }
    groups
}

/// The size of a memory page, which `/proc` counts resident memory in.
pub(crate) fn page_size() -> u64 {
    // SAFETY: sysconf(3) only reads a system constant; it touches no memory of ours.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    // sysconf returns -1 only for names the system does not know; every POSIX system knows
    // this one, and 4 KiB is the size on every platform yarn-ha runs on.
    u64::try_from(size).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLEEP: &str = "4242 (sleep) S 4240 4240 4240 0 -1 4194304 92 0 0 0 0 0 0 0 20 0 1 0 \
                         31337 8306688 132 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 \
                         0 0 0 0";

    #[test]
    fn the_fields_are_read_by_position() {
        let stat = ProcStat::parse(SLEEP).unwrap();
        assert_eq!(
            stat,
            ProcStat {
                pid: 4242,
                state: 'S',
                pgrp: 4240,
                rss_pages: 132
            }
        );
        assert!(!stat.is_zombie());
    }

    #[test]
    fn a_command_name_with_spaces_and_parentheses_does_not_shift_the_fields() {
        let text = "77 (my (odd) cmd ) Z 1 70 70 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 \
                    18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
        let stat = ProcStat::parse(text).unwrap();
        assert_eq!(stat.pid, 77);
        assert_eq!(stat.pgrp, 70);
        assert_eq!(stat.rss_pages, 0);
        assert!(stat.is_zombie());
    }

    #[test]
    fn text_in_another_format_is_refused() {
        assert_eq!(ProcStat::parse(""), None);
        assert_eq!(ProcStat::parse("4242 sleep S 1 2"), None);
        assert_eq!(ProcStat::parse("4242 (sleep) S 4240"), None);
        assert_eq!(ProcStat::parse(&SLEEP.replace(" 132 ", " lots ")), None);
    }

    #[test]
    fn groups_sum_the_resident_memory_of_their_processes() {
        let process = |pid, pgrp, rss_pages| ProcStat {
            pid,
            state: 'S',
            pgrp,
            rss_pages,
        };
        let table = [
            process(10, 10, 100),
            process(11, 10, 50),
            process(20, 20, 7),
        ];
        let groups = rss_bytes_by_group(&table, 4096);
        assert_eq!(groups[&10], 150 * 4096);
        assert_eq!(groups[&20], 7 * 4096);
        assert_eq!(groups.len(), 2);
    }

    #[test]
    fn this_process_can_be_read_from_proc() {
        let me = ProcStat::read(std::process::id()).unwrap();
        assert_eq!(me.pid, std::process::id());
        assert!(me.rss_pages > 0);
        assert!(ProcStat::read_all().iter().any(|stat| stat.pid == me.pid));
        assert!(page_size() >= 4096);
    }
}

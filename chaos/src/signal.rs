//! POSIX signals to daemon processes: how the minicluster stops its daemons and how fault
//! drills kill, pause and resume them.

use std::io;

/// A signal the harness sends to a daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// `SIGTERM`: asks the daemon to stop cleanly.
    Term,
    /// `SIGKILL`: ends the process at once (a crash, as far as the daemon's peers can tell).
    Kill,
    /// `SIGSTOP`: freezes the process, which then looks hung to its peers.
    Stop,
    /// `SIGCONT`: resumes a process frozen by [`Signal::Stop`].
    Cont,
}

impl Signal {
    fn number(self) -> libc::c_int {
        match self {
            Signal::Term => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
            Signal::Stop => libc::SIGSTOP,
            Signal::Cont => libc::SIGCONT,
        }
    }

    /// Sends this signal to the process `pid`.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for pid 0 or a pid above `i32::MAX` (which `kill(2)` would read as "my
    /// process group" or "every process"), otherwise the OS error: `ESRCH` when no such process
    /// exists, `EPERM` when it belongs to another user.
    pub fn send(self, pid: u32) -> io::Result<()> {
        kill(checked_pid(pid)?, self.number())
    }

    /// Sends this signal to every process of the process group `pgid`, which reaches a daemon
    /// started in its own group together with anything it forked.
    ///
    /// # Errors
    ///
    /// As [`Signal::send`]; `ESRCH` when the group has no process left.
    pub fn send_to_group(self, pgid: u32) -> io::Result<()> {
        kill(-checked_pid(pgid)?, self.number())
    }
}

/// Whether a process `pid` exists (running, stopped, or exited but not yet reaped by its
/// parent), as `kill(pid, 0)` tells: a process of another user counts as existing.
pub fn process_exists(pid: u32) -> bool {
    match checked_pid(pid).and_then(|pid| kill(pid, 0)) {
        Ok(()) => true,
        Err(err) => err.raw_os_error() == Some(libc::EPERM),
    }
}

fn checked_pid(pid: u32) -> io::Result<libc::pid_t> {
    match libc::pid_t::try_from(pid) {
        Ok(pid) if pid > 0 => Ok(pid),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{pid} is not a process id a signal may be sent to"),
        )),
    }
}

/// The one place this crate calls into libc: `kill(2)` with `target` as the OS reads it
/// (positive: a process, negative: a process group, `signal` 0: only check it exists).
fn kill(target: libc::pid_t, signal: libc::c_int) -> io::Result<()> {
    // SAFETY: kill(2) takes two integers and touches no memory of ours; callers pass targets
    // built by `checked_pid`, so 0 and -1 (own group, every process) cannot reach it.
    let result = unsafe { libc::kill(target, signal) };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pids_that_kill_would_read_as_groups_are_refused() {
        for pid in [0, u32::MAX, i32::MAX as u32 + 1] {
            let err = Signal::Kill.send(pid).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{pid}");
            assert!(!process_exists(pid), "{pid}");
        }
    }

    #[test]
    fn the_current_process_exists() {
        assert!(process_exists(std::process::id()));
    }
}

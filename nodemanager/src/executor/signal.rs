//! Signals to processes and process groups: the only calls into libc that touch processes.
//!
//! Public because the chaos harness signals daemons with the same guarded calls.

use std::io;

/// A signal the NodeManager or the chaos harness sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGTERM: asks a process to stop.
    Term,
    /// SIGKILL: stops it at once.
    Kill,
    /// SIGSTOP: freezes it.
    Stop,
    /// SIGCONT: thaws it.
    Cont,
}

impl Signal {
    fn number(self) -> libc::c_int {
        match self {
            Self::Term => libc::SIGTERM,
            Self::Kill => libc::SIGKILL,
            Self::Stop => libc::SIGSTOP,
            Self::Cont => libc::SIGCONT,
        }
    }

    /// Sends this signal to process `pid`.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a pid `kill(2)` would misread (0, 1, or beyond `i32::MAX`); otherwise
    /// the OS error, `ESRCH` when the process is gone.
    pub fn send(self, pid: u32) -> io::Result<()> {
        kill(checked_pid(pid)?, self.number())
    }

    /// Sends this signal to every process of group `pgid`.
    ///
    /// # Errors
    ///
    /// As [`Signal::send`].
    pub fn send_to_group(self, pgid: u32) -> io::Result<()> {
        signal_group(pgid, self.number())
    }
}

/// Sends `signal` (SIGTERM or SIGKILL) to every process of group `pgid`.
///
/// # Errors
///
/// `InvalidInput` for a pgid that `kill(2)` would read as "my own group" or "every process";
/// otherwise the OS error, `ESRCH` when the group has no process left.
pub(crate) fn signal_group(pgid: u32, signal: libc::c_int) -> io::Result<()> {
    kill(-checked_pid(pgid)?, signal)
}

/// Whether process `pid` exists (zombies included), as `kill(pid, 0)` tells.
pub fn process_exists(pid: u32) -> bool {
    match checked_pid(pid).and_then(|pid| kill(pid, 0)) {
        Ok(()) => true,
        Err(err) => err.raw_os_error() == Some(libc::EPERM),
    }
}

/// Makes the calling process the leader of a new session and process group, so that the
/// container and everything it forks can be signalled together and no terminal signal of the
/// NodeManager's session reaches it. Runs in the forked child before `exec`.
///
/// # Errors
///
/// The OS error of `setsid(2)`.
pub(crate) fn become_session_leader() -> io::Result<()> {
    // SAFETY: setsid(2) is async-signal-safe, takes no arguments and touches no memory, so it
    // may run between fork and exec.
    if unsafe { libc::setsid() } == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn checked_pid(pid: u32) -> io::Result<libc::pid_t> {
    match libc::pid_t::try_from(pid) {
        Ok(pid) if pid > 1 => Ok(pid),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{pid} is not a process id a signal may be sent to"),
        )),
    }
}

fn kill(target: libc::pid_t, signal: libc::c_int) -> io::Result<()> {
    // SAFETY: kill(2) takes two integers and touches no memory of ours; `checked_pid` keeps 0,
    // 1 and -1 (own group, init, every process) out of `target`.
    if unsafe { libc::kill(target, signal) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_kill_would_misread_are_refused() {
        for pid in [0, 1, u32::MAX, i32::MAX as u32 + 1] {
            let err = signal_group(pid, libc::SIGKILL).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{pid}");
            assert!(!process_exists(pid), "{pid}");
        }
    }

    #[test]
    fn this_process_exists() {
        assert!(process_exists(std::process::id()));
    }
}

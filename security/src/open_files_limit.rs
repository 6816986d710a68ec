//! The process's open-files limit, raised once when a daemon starts.

use std::io;

use crate::Error;

/// The open-files limit (`RLIMIT_NOFILE`) before and after [`raise_open_files_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFilesLimit {
    /// The soft limit the process started with.
    pub previous_soft: u64,
    /// The soft limit now in force: the hard limit.
    pub soft: u64,
    /// The hard limit, the ceiling an unprivileged process may raise its soft limit to.
    pub hard: u64,
}

/// Raises the soft open-files limit to the hard limit and returns both; a no-op when they are
/// already equal.
///
/// Every connection holds a file descriptor, so the soft limit (often 1,024) caps how many
/// clients a daemon serves at once, while the hard limit is what the administrator allows. As
/// Hadoop's start scripts do with `ulimit -n`, a daemon takes all it is allowed. Only the
/// calling process changes; call it before the runtime starts threads or opens listeners.
///
/// # Errors
///
/// [`Error::OpenFilesLimit`] when the limit cannot be read or raised (e.g. a hard limit of
/// `RLIM_INFINITY` on a system that refuses it); the process keeps the limit it had.
pub fn raise_open_files_limit() -> Result<OpenFilesLimit, Error> {
    let mut limit = read_limit()?;
    let previous_soft = limit.rlim_cur;
    if limit.rlim_cur != limit.rlim_max {
        limit.rlim_cur = limit.rlim_max;
        // SAFETY: setrlimit only reads the rlimit it is given, which lives across the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
            return Err(Error::OpenFilesLimit {
                action: "raising",
                source: io::Error::last_os_error(),
            });
        }
    }
    Ok(OpenFilesLimit {
        previous_soft,
        soft: limit.rlim_cur,
        hard: limit.rlim_max,
    })
}

fn read_limit() -> Result<libc::rlimit, Error> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into `limit`, which lives across the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(Error::OpenFilesLimit {
            action: "reading",
            source: io::Error::last_os_error(),
        });
    }
    Ok(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_limit_is_raised_to_the_hard_limit_and_then_left_alone() {
        // Lower the soft limit by one first (harmless to the tests running beside this one), so
        // the raise below has something to do even where the limits start out equal.
        let start = read_limit().unwrap();
        let lowered = libc::rlimit {
            rlim_cur: start.rlim_max - 1,
            rlim_max: start.rlim_max,
        };
        // SAFETY: as in raise_open_files_limit.
        assert_eq!(
            unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lowered) },
            0,
            "{}",
            io::Error::last_os_error()
        );

        let raised = raise_open_files_limit().unwrap();
        assert_eq!(
            raised,
            OpenFilesLimit {
                previous_soft: start.rlim_max - 1,
                soft: start.rlim_max,
                hard: start.rlim_max,
            }
        );
        let now = read_limit().unwrap();
        assert_eq!(
            (now.rlim_cur, now.rlim_max),
            (start.rlim_max, start.rlim_max)
        );

        let again = raise_open_files_limit().unwrap();
        assert_eq!(again.previous_soft, again.soft);
        assert_eq!(again.soft, again.hard);
    }
}

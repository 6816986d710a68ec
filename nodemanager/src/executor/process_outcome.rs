//! [`ProcessOutcome`]: how a container's process ended, and the [`ContainerExit`] that the
//! NodeManager reports for it.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use super::{ContainerExit, KillRequest};

/// How the process at the root of a container ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProcessOutcome {
    /// It exited with this code. The launch wrapper turns a signal death of the user's command
    /// into `128 + signal`, as any shell does, so most signal deaths arrive here too.
    Exited(i32),
    /// It was killed by this signal (the wrapper itself died, as SIGKILL makes it).
    Signalled(i32),
    /// Nobody can tell; the text says why, naming the container and where the code was sought.
    Unknown(String),
}

impl ProcessOutcome {
    /// Reads a status returned by `wait(2)`.
    pub(crate) fn from_status(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) => Self::Exited(code),
            (None, Some(signal)) => Self::Signalled(signal),
            (None, None) => Self::Unknown(format!(
                "the process ended with wait status {status:?}, which holds neither an exit \
                 code nor a signal"
            )),
        }
    }

    /// Whether the kernel's OOM killer, having killed `oom_kills` processes in the container's
    /// cgroup, is why the container ended, so that it is reported as exceeding its memory:
    /// only when the NodeManager did not ask it to stop (then the stop is the reason) and it
    /// did not succeed anyway.
    pub(crate) fn ended_by_oom_kill(&self, kill: Option<&KillRequest>, oom_kills: u64) -> bool {
        oom_kills > 0 && kill.is_none() && *self != Self::Exited(0)
    }

    /// The [`ContainerExit`] to report: the process's own code when it ended by itself, the
    /// kill's status when the NodeManager stopped it (`sigkill_sent` tells whether the grace
    /// period ran out), and [`ContainerExit::LOST`] when the code is unknown and nobody asked
    /// for the container to stop.
    pub(crate) fn into_container_exit(
        self,
        kill: Option<&KillRequest>,
        sigkill_sent: bool,
    ) -> ContainerExit {
        let Some(kill) = kill else {
            return match self {
                Self::Exited(0) => ContainerExit {
                    exit_code: 0,
                    diagnostics: String::new(),
                },
                Self::Exited(code) => ContainerExit {
                    exit_code: code,
                    diagnostics: format!(
                        "Container exited with a non-zero exit code {}.",
                        describe_code(code)
                    ),
                },
                Self::Signalled(signal) => ContainerExit {
                    exit_code: 128 + signal,
                    diagnostics: format!(
                        "Container was terminated by {}, exit code {}.",
                        signal_label(signal),
                        128 + signal
                    ),
                },
                Self::Unknown(reason) => ContainerExit {
                    exit_code: ContainerExit::LOST,
                    diagnostics: reason,
                },
            };
        };
        let detail = match self {
            Self::Signalled(signal) if signal == libc::SIGKILL && sigkill_sent => format!(
                "Container killed on request: it was still running when the grace period after \
                 SIGTERM ended and was killed with SIGKILL, exit code {}.",
                ContainerExit::FORCE_KILLED
            ),
            Self::Signalled(signal) => format!(
                "Container killed on request: terminated by {}, exit code {}.",
                signal_label(signal),
                128 + signal
            ),
            Self::Exited(code) => {
                format!(
                    "Container killed on request. Exit code is {}.",
                    describe_code(code)
                )
            }
            Self::Unknown(reason) if sigkill_sent => {
                format!("Container killed on request with SIGTERM, then SIGKILL; {reason}")
            }
            Self::Unknown(reason) => format!("Container killed on request with SIGTERM; {reason}"),
        };
        let diagnostics = if kill.diagnostics.is_empty() {
            detail
        } else {
            format!("{}\n{detail}", kill.diagnostics)
        };
        ContainerExit {
            exit_code: kill.exit_status,
            diagnostics,
        }
    }
}

/// An exit code, with the signal it stands for when it is `128 + signal`.
fn describe_code(code: i32) -> String {
    match signal_name(code - 128) {
        Some(name) if code > 128 => format!("{code} (128 + {name})"),
        _ => code.to_string(),
    }
}

/// `SIGTERM`, or `signal 40` for one without a well-known name.
fn signal_label(signal: i32) -> String {
    signal_name(signal).map_or_else(|| format!("signal {signal}"), str::to_owned)
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KILLED_BY_APPMASTER: i32 = -105;

    fn stop() -> KillRequest {
        KillRequest::new(
            KILLED_BY_APPMASTER,
            "Container killed by the ApplicationMaster.",
        )
    }

    #[test]
    fn a_successful_exit_has_no_diagnostics() {
        let exit = ProcessOutcome::Exited(0).into_container_exit(None, false);
        assert_eq!(
            exit,
            ContainerExit {
                exit_code: 0,
                diagnostics: String::new()
            }
        );
    }

    #[test]
    fn a_failed_exit_reports_its_code_and_the_signal_behind_codes_above_128() {
        let exit = ProcessOutcome::Exited(3).into_container_exit(None, false);
        assert_eq!(exit.exit_code, 3);
        assert_eq!(
            exit.diagnostics,
            "Container exited with a non-zero exit code 3."
        );

        let exit = ProcessOutcome::Exited(139).into_container_exit(None, false);
        assert_eq!(exit.exit_code, 139);
        assert!(
            exit.diagnostics.contains("139 (128 + SIGSEGV)"),
            "{}",
            exit.diagnostics
        );
    }

    #[test]
    fn a_signal_death_reports_128_plus_the_signal_and_names_it() {
        let exit = ProcessOutcome::Signalled(libc::SIGKILL).into_container_exit(None, false);
        assert_eq!(exit.exit_code, ContainerExit::FORCE_KILLED);
        assert!(exit.diagnostics.contains("SIGKILL"), "{}", exit.diagnostics);

        let exit = ProcessOutcome::Signalled(40).into_container_exit(None, false);
        assert_eq!(exit.exit_code, 168);
        assert!(
            exit.diagnostics.contains("signal 40"),
            "{}",
            exit.diagnostics
        );
    }

    #[test]
    fn an_unknown_outcome_is_lost_with_its_reason() {
        let exit =
            ProcessOutcome::Unknown("no exit code file".into()).into_container_exit(None, false);
        assert_eq!(exit.exit_code, ContainerExit::LOST);
        assert_eq!(exit.diagnostics, "no exit code file");
    }

    #[test]
    fn a_stopped_container_reports_the_kill_status_then_what_the_process_did() {
        let exit = ProcessOutcome::Exited(143).into_container_exit(Some(&stop()), false);
        assert_eq!(exit.exit_code, KILLED_BY_APPMASTER);
        assert_eq!(
            exit.diagnostics,
            "Container killed by the ApplicationMaster.\n\
             Container killed on request. Exit code is 143 (128 + SIGTERM)."
        );

        let exit =
            ProcessOutcome::Signalled(libc::SIGKILL).into_container_exit(Some(&stop()), true);
        assert_eq!(exit.exit_code, KILLED_BY_APPMASTER);
        assert!(
            exit.diagnostics.contains("grace period"),
            "{}",
            exit.diagnostics
        );
        assert!(exit.diagnostics.contains("SIGKILL"), "{}", exit.diagnostics);
    }

    #[test]
    fn an_oom_kill_explains_an_unrequested_failure_only() {
        let killed = ProcessOutcome::Signalled(libc::SIGKILL);
        assert!(killed.ended_by_oom_kill(None, 1));
        assert!(ProcessOutcome::Exited(137).ended_by_oom_kill(None, 2));
        assert!(ProcessOutcome::Unknown("no exit code file".into()).ended_by_oom_kill(None, 1));
        assert!(!killed.ended_by_oom_kill(None, 0), "no OOM kill recorded");
        assert!(
            !ProcessOutcome::Exited(0).ended_by_oom_kill(None, 1),
            "a process of the container was killed, but the container succeeded"
        );
        assert!(
            !killed.ended_by_oom_kill(Some(&stop()), 1),
            "the NodeManager's stop is the reason"
        );
    }

    #[test]
    fn a_stop_without_diagnostics_starts_with_the_process_detail() {
        let kill = KillRequest::new(-108, "");
        let exit = ProcessOutcome::Signalled(libc::SIGTERM).into_container_exit(Some(&kill), false);
        assert_eq!(exit.exit_code, -108);
        assert_eq!(
            exit.diagnostics,
            "Container killed on request: terminated by SIGTERM, exit code 143."
        );
    }
}

//! [`Interrupts`]: the signals that end a benchmark early, received as events so that its
//! daemons are stopped first; [`Interrupted`]: the error such an end returns.

use std::fmt;

use anyhow::Context;
use tokio::signal::unix::{Signal as SignalStream, SignalKind, signal};

/// The benchmark was stopped by a signal; its daemons were stopped too.
#[derive(Debug)]
pub(crate) struct Interrupted {
    /// The signal's name, such as `SIGINT`.
    pub(crate) signal: &'static str,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "interrupted by {}; the cluster's daemons were stopped",
            self.signal
        )
    }
}

impl std::error::Error for Interrupted {}

/// SIGINT, SIGTERM and SIGHUP, received as events rather than ending the process.
///
/// Installed before any daemon starts, so that from then on these signals let the benchmark
/// stop its daemons instead of killing this process and orphaning them.
pub(crate) struct Interrupts {
    interrupt: SignalStream,
    terminate: SignalStream,
    hangup: SignalStream,
}

impl Interrupts {
    /// Installs the three handlers. Must run inside a Tokio runtime.
    ///
    /// # Errors
    ///
    /// When the operating system refuses a handler; the message names the signal.
    pub(crate) fn install() -> anyhow::Result<Self> {
        let install =
            |kind, name| signal(kind).with_context(|| format!("installing the {name} handler"));
        Ok(Interrupts {
            interrupt: install(SignalKind::interrupt(), "SIGINT")?,
            terminate: install(SignalKind::terminate(), "SIGTERM")?,
            hangup: install(SignalKind::hangup(), "SIGHUP")?,
        })
    }

    /// The name of the first of the signals to arrive.
    pub(crate) async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.hangup.recv() => "SIGHUP",
        }
    }
}

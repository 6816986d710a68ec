//! [`StopSignals`]: the signals that end `yarn-ha top`.

use anyhow::Context;
use tokio::signal::unix::{Signal, SignalKind, signal};

/// SIGINT, SIGTERM and SIGHUP, handled: each ends `top` as `q` does, instead of ending the
/// process on the spot (which would leave a terminal in raw mode).
pub struct StopSignals {
    interrupt: Signal,
    terminate: Signal,
    hangup: Signal,
}

impl StopSignals {
    /// Takes over the three signals for the rest of the process's life.
    ///
    /// # Errors
    ///
    /// When a handler cannot be installed.
    pub fn install() -> anyhow::Result<Self> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt()).context("handling SIGINT")?,
            terminate: signal(SignalKind::terminate()).context("handling SIGTERM")?,
            hangup: signal(SignalKind::hangup()).context("handling SIGHUP")?,
        })
    }

    /// Returns once any of the signals arrives.
    pub async fn recv(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
            _ = self.hangup.recv() => {}
        }
    }
}

//! The output and input of a plain `yarn-ha top`, when stdin or stdout is not a terminal.

use std::io::{self, BufRead, Write};

use tokio::sync::mpsc;
use yarn_client::top::{FrameSize, TopFrame};

use super::{FrameOutput, Input};

/// Frames as plain text on stdout, one after another.
pub struct PlainOutput {
    /// `-cols` and `-rows`, when given; unlimited otherwise.
    fixed: FrameSize,
    frames: u64,
    out: io::Stdout,
}

impl PlainOutput {
    /// Frames of `fixed` size (unlimited where it gives none) on stdout.
    pub fn new(fixed: FrameSize) -> Self {
        Self {
            fixed,
            frames: 0,
            out: io::stdout(),
        }
    }
}

impl FrameOutput for PlainOutput {
    fn size(&self) -> FrameSize {
        self.fixed
    }

    fn resize(&mut self, _columns: u16, _rows: u16) {}

    fn draw(&mut self, frame: &TopFrame) -> io::Result<()> {
        let mut out = self.out.lock();
        if self.frames > 0 {
            writeln!(out)?;
        }
        for line in frame.lines() {
            writeln!(out, "{line}")?;
        }
        self.frames += 1;
        out.flush()
    }
}

/// Reads stdin line by line on a thread of its own and sends each character that is not
/// white space as a key, then [`Input::End`] at the end of stdin or on a read error.
pub fn spawn_line_reader(sender: mpsc::UnboundedSender<Input>) {
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => {
                    let _ = sender.send(Input::End);
                    return;
                }
                Ok(_) => {
                    let keys = String::from_utf8_lossy(&line);
                    for key in keys.chars().filter(|c| !c.is_whitespace()) {
                        if sender.send(Input::Key(key)).is_err() {
                            return;
                        }
                    }
                }
            }
        }
    });
}

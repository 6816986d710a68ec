//! The terminal of an interactive `yarn-ha top`: raw mode on the alternate screen, keys, and
//! frames drawn in place.

use std::io::{self, Write};

use crossterm::cursor::{Hide, MoveTo, Show};
use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::style::{Attribute, Print, SetAttribute};
use crossterm::terminal::{self, Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{execute, queue};
use tokio::sync::mpsc;
use yarn_client::top::{FrameSize, INTERRUPT_KEY, TopFrame};

use super::{FrameOutput, Input};

/// The terminal in raw mode on the alternate screen, with the cursor hidden, for as long as
/// this value lives. Dropping it (on every way out of `top`, an error's or a panic's unwinding
/// included) restores the terminal as it was; so does a panic before unwinding starts, so that
/// its message lands on the restored screen rather than on the alternate one that goes away.
pub struct RawTerminal(());

impl RawTerminal {
    /// Enters raw mode and the alternate screen.
    ///
    /// # Errors
    ///
    /// When the terminal refuses raw mode (nothing changed then), or the escape sequences
    /// cannot be written (raw mode is left again).
    pub fn enter() -> io::Result<Self> {
        terminal::enable_raw_mode()?;
        let raw = RawTerminal(());
        execute!(io::stdout(), EnterAlternateScreen, Hide)?;
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        Ok(raw)
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        restore();
    }
}

/// Shows the cursor, leaves the alternate screen and raw mode. Harmless when done already:
/// leaving raw mode twice is a no-op and the escape sequences only repeat a state.
fn restore() {
    // Best effort: with the terminal gone (SIGHUP) there is nothing left to restore.
    let _ = execute!(io::stdout(), Show, LeaveAlternateScreen);
    let _ = terminal::disable_raw_mode();
}

/// Reads the terminal's events on a thread of its own and sends key presses (Enter as `\r`,
/// Esc as `\x1b`, Ctrl-C as [`INTERRUPT_KEY`]) and resizes; other keys (arrows, function keys)
/// are left out. Sends [`Input::End`] when the terminal can no longer be read.
pub fn spawn_key_reader(sender: mpsc::UnboundedSender<Input>) {
    std::thread::spawn(move || {
        loop {
            let input = match event::read() {
                Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => match key.code {
                    KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                        Input::Key(INTERRUPT_KEY)
                    }
                    KeyCode::Char(c) => Input::Key(c),
                    KeyCode::Enter => Input::Key('\r'),
                    KeyCode::Esc => Input::Key('\x1b'),
                    _ => continue,
                },
                Ok(Event::Resize(columns, rows)) => Input::Resize { columns, rows },
                Ok(_) => continue,
                Err(_) => Input::End,
            };
            let ended = input == Input::End;
            if sender.send(input).is_err() || ended {
                return;
            }
        }
    });
}

/// Frames drawn in place on the terminal: each line at its row, the column headers in reverse
/// video, the rows below the frame cleared.
pub struct TerminalScreen {
    /// `-cols` and `-rows`, when given: they win over the terminal's size.
    fixed: FrameSize,
    columns: u16,
    rows: u16,
}

impl TerminalScreen {
    /// A screen of the terminal's present size.
    ///
    /// # Errors
    ///
    /// When the terminal's size cannot be read.
    pub fn new(fixed: FrameSize) -> io::Result<Self> {
        let (columns, rows) = terminal::size()?;
        Ok(Self {
            fixed,
            columns,
            rows,
        })
    }
}

impl FrameOutput for TerminalScreen {
    fn size(&self) -> FrameSize {
        FrameSize {
            columns: Some(self.fixed.columns.unwrap_or(usize::from(self.columns))),
            rows: Some(self.fixed.rows.unwrap_or(usize::from(self.rows))),
        }
    }

    fn resize(&mut self, columns: u16, rows: u16) {
        self.columns = columns;
        self.rows = rows;
    }

    fn draw(&mut self, frame: &TopFrame) -> io::Result<()> {
        let mut out = io::stdout().lock();
        let mut row: u16 = 0;
        for (index, line) in frame.lines().iter().enumerate() {
            if row >= self.rows {
                break;
            }
            queue!(out, MoveTo(0, row), Clear(ClearType::CurrentLine))?;
            if frame.column_header() == Some(index) {
                queue!(
                    out,
                    SetAttribute(Attribute::Reverse),
                    Print(line),
                    SetAttribute(Attribute::Reset)
                )?;
            } else {
                queue!(out, Print(line))?;
            }
            row += 1;
        }
        // Moving below the last row would land on it and clear it.
        if row < self.rows {
            queue!(out, MoveTo(0, row), Clear(ClearType::FromCursorDown))?;
        }
        out.flush()
    }
}

//! `yarn-ha top`: Hadoop's `yarn top`, the client crate's [`yarn_client::top`] on a terminal.
//!
//! Two ways to run, chosen by what stdin and stdout are:
//!
//! - **Interactive**, when both are terminals: the alternate screen in raw mode, redrawn in
//!   place every refresh and on every key that changes the view or terminal resize; single
//!   keys act without Enter. The terminal is restored on every way out: `q`, Ctrl-C,
//!   SIGINT, SIGTERM, SIGHUP, an error, a panic.
//! - **Plain**, otherwise: each frame printed whole after the one before (a blank line
//!   between), without escape sequences and with whole lines; keys are read from stdin as lines (`q` and
//!   Enter quits). Ends after `--iterations` refreshes, or without it once stdin ends and a
//!   frame was printed; SIGINT, SIGTERM and SIGHUP end it too, and so does a closed stdout
//!   (`| head`).
//!
//! Either way the exit status is 0, or 1 when the last refresh failed (its error then goes to
//! stderr, too), so a script's `yarn-ha top --iterations 1` fails when no ResourceManager
//! answered.

mod plain;
mod stop_signals;
mod terminal;

use std::io::{self, IsTerminal};
use std::num::NonZeroU64;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tokio::sync::mpsc;
use yarn_client::YarnClient;
use yarn_client::top::{
    FrameSize, KeyOutcome, RefreshLimit, TopFilter, TopFrame, TopSnapshot, TopView,
};
use yarn_conf::Configuration;

use self::plain::{PlainOutput, spawn_line_reader};
use self::stop_signals::StopSignals;
use self::terminal::{RawTerminal, TerminalScreen};
use crate::cli::TopArgs;

/// What reaches the refresh loop from the user's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    /// One key, as a character (Enter as `\r`, Ctrl-C as [`yarn_client::top::INTERRUPT_KEY`]).
    Key(char),
    /// The terminal's new size, in character cells.
    Resize { columns: u16, rows: u16 },
    /// No input will come any more.
    End,
}

/// Where frames go: the terminal in raw mode, or plain lines on stdout.
trait FrameOutput {
    /// The size frames may fill, given the terminal's size when there is one.
    fn size(&self) -> FrameSize;
    /// Records that the terminal now has this size.
    fn resize(&mut self, columns: u16, rows: u16);
    /// Shows `frame`.
    fn draw(&mut self, frame: &TopFrame) -> io::Result<()>;
}

/// Runs `yarn-ha top` against the cluster configured in `conf_dir` until it is told to stop.
pub fn run(conf_dir: Option<&Path>, args: TopArgs) -> anyhow::Result<ExitCode> {
    let dir = conf_dir
        .context("top needs a configuration directory: pass --conf-dir DIR or set YARN_CONF_DIR")?;
    let conf = Configuration::load_dir(dir)?;
    let client = YarnClient::from_conf(&conf)?;
    let filter = TopFilter::new(&args.queues, &args.users, &args.types);
    let delay = Duration::from_secs(args.delay);
    let limit = RefreshLimit::new(args.iterations.and_then(NonZeroU64::new));
    let fixed = FrameSize {
        columns: args.cols.map(usize::from),
        rows: args.rows.map(usize::from),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let interactive = io::stdin().is_terminal() && io::stdout().is_terminal();
    let last_error = runtime.block_on(async {
        // Before the terminal changes: from then on no signal may end the process unhandled.
        let mut signals = StopSignals::install()?;
        let (sender, inputs) = mpsc::unbounded_channel();
        let view = TopView::new(delay);
        let session = Session {
            client: &client,
            filter: &filter,
            inputs,
            signals: &mut signals,
        };
        if interactive {
            // Restores the terminal when dropped, however this block ends.
            let _raw = RawTerminal::enter().context("putting the terminal in raw mode")?;
            terminal::spawn_key_reader(sender);
            let mut screen = TerminalScreen::new(fixed)?;
            // Something to look at while the first refresh waits for the ResourceManager.
            draw(&mut screen, &view, &filter, None, None)?;
            session.run(view, limit, &mut screen).await
        } else {
            spawn_line_reader(sender);
            let mut out = PlainOutput::new(fixed);
            match session.run(view, limit, &mut out).await {
                // A reader that went away (`yarn-ha top | head`) has all it wanted.
                Err(err) if is_broken_pipe(&err) => Ok(None),
                outcome => outcome,
            }
        }
    })?;
    match last_error {
        None => Ok(ExitCode::SUCCESS),
        Some(error) => {
            eprintln!("yarn-ha top: the last refresh failed: {error}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// What one run of `top` works with, apart from the view and the screen.
struct Session<'a> {
    client: &'a YarnClient,
    filter: &'a TopFilter,
    inputs: mpsc::UnboundedReceiver<Input>,
    signals: &'a mut StopSignals,
}

impl Session<'_> {
    /// Refreshes at once and then every delay of `view` (from the start of one refresh to the
    /// start of the next), drawing each on `out`, and applies keys to `view` as they come,
    /// until a quit key, a stop signal or `limit`. A key or signal is handled at once, even
    /// while a refresh waits for the ResourceManager (the refresh is dropped when it quits).
    /// Returns the error of the last refresh when it failed.
    ///
    /// # Errors
    ///
    /// When `out` refuses a frame.
    async fn run(
        mut self,
        mut view: TopView,
        mut limit: RefreshLimit,
        out: &mut dyn FrameOutput,
    ) -> anyhow::Result<Option<String>> {
        let (client, filter) = (self.client, self.filter);
        let delay = view.delay();
        let mut snapshot: Option<TopSnapshot> = None;
        let mut last_error: Option<String> = None;
        let mut input_open = true;
        let mut refresh = std::pin::pin!(TopSnapshot::fetch(client, filter));
        let mut refreshing = true;
        let mut next_refresh = std::pin::pin!(tokio::time::sleep(delay));
        loop {
            tokio::select! {
                result = refresh.as_mut(), if refreshing => {
                    refreshing = false;
                    match result {
                        Ok(fresh) => {
                            snapshot = Some(fresh);
                            last_error = None;
                        }
                        Err(err) => last_error = Some(err.to_string()),
                    }
                    draw(out, &view, filter, snapshot.as_ref(), last_error.as_deref())?;
                    limit.refreshed();
                    if limit.reached() {
                        break;
                    }
                }
                () = next_refresh.as_mut(), if !refreshing => {
                    next_refresh.as_mut().reset(tokio::time::Instant::now() + delay);
                    refresh.set(TopSnapshot::fetch(client, filter));
                    refreshing = true;
                }
                input = self.inputs.recv(), if input_open => match input {
                    Some(Input::Key(key)) => match view.handle_key(key) {
                        KeyOutcome::Quit => break,
                        KeyOutcome::Redraw => {
                            draw(out, &view, filter, snapshot.as_ref(), last_error.as_deref())?;
                        }
                        KeyOutcome::Ignored => {}
                    },
                    Some(Input::Resize { columns, rows }) => {
                        out.resize(columns, rows);
                        draw(out, &view, filter, snapshot.as_ref(), last_error.as_deref())?;
                    }
                    Some(Input::End) | None => {
                        input_open = false;
                        limit.input_ended();
                        if limit.reached() {
                            break;
                        }
                    }
                },
                () = self.signals.recv() => break,
            }
        }
        Ok(last_error)
    }
}

/// Renders the screen `view` shows and draws it on `out`, at `out`'s size.
fn draw(
    out: &mut dyn FrameOutput,
    view: &TopView,
    filter: &TopFilter,
    snapshot: Option<&TopSnapshot>,
    refresh_error: Option<&str>,
) -> io::Result<()> {
    out.draw(&TopFrame::render(
        view,
        filter,
        snapshot,
        refresh_error,
        out.size(),
    ))
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<io::Error>()
        .is_some_and(|err| err.kind() == io::ErrorKind::BrokenPipe)
}

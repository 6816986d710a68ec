//! `yarn-ha top` against a minicluster of real processes, run as a user would: with stdin and
//! stdout on pipes (plain mode) and on a pseudo-terminal (interactive mode).
//!
//! What this file proves:
//! - a running application shows up in every frame, with the header's node and queue figures,
//!   and plain frames carry no escape sequences;
//! - plain mode ends after `--iterations` frames whatever stdin does, on `q` read from stdin,
//!   at the end of stdin once a frame was printed, and on SIGINT, each with exit status 0;
//! - on a terminal, top switches it to raw mode and the alternate screen, quits on a single
//!   `q` or Ctrl-C key (no Enter, no SIGINT from the line discipline: raw mode must be on for
//!   either to work) and on SIGINT, and leaves the terminal as it found it each time;
//! - after the active ResourceManager is SIGKILLed, top shows the application from the new
//!   leader;
//! - with no ResourceManager answering, `--iterations 1` exits 1 with the failure on stderr.
//!
//! Every wait has a deadline and every process started is killed if a test fails.

mod common;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::process_cluster::{DEADLINE, ProcessCluster, eventually, one_cluster_at_a_time};
use common::{stderr, yarn_ha_command};

#[test]
fn top_shows_the_running_application_and_ends_as_told() {
    let _turn = one_cluster_at_a_time();
    let mut cluster = ProcessCluster::start(1);
    let mut job = KillOnDrop(cluster.spawn_dshell(&[
        "--shell_command",
        "sleep 300",
        "--num_containers",
        "1",
    ]));
    let app = cluster.running_application();
    // Two containers (the AM's and the task's) once the task runs.
    eventually("the task container to be allocated", || {
        let mut out = TopProcess::spawn(&cluster, &["--iterations", "1"], Stdio::null());
        let text = out.wait_for_exit(DEADLINE).1;
        let row = text.lines().find(|line| line.contains(&app))?.to_owned();
        (row.split_whitespace().nth(5) == Some("2")).then_some(())
    });

    {
        tracing_phase("--iterations 2: two frames, even though stdin ends at once");
        let mut top = TopProcess::spawn(
            &cluster,
            &["-delay", "1", "--iterations", "2"],
            Stdio::null(),
        );
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "{text}");
        assert_eq!(frames(&text).len(), 2, "{text}");
        for frame in frames(&text) {
            assert_frame_shows(&frame, &app);
        }
        assert!(
            !text.contains('\x1b'),
            "plain frames carry no escapes: {text:?}"
        );
    }

    {
        tracing_phase("q on stdin quits; stdin stays open");
        let mut top = TopProcess::spawn(&cluster, &["-delay", "1"], Stdio::piped());
        top.wait_for_output(&app);
        let mut stdin = top.child.0.stdin.take().expect("piped stdin");
        stdin.write_all(b"q\n").unwrap();
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "{text}");
        drop(stdin);
    }

    {
        tracing_phase("the end of stdin ends top after one frame");
        let mut top = TopProcess::spawn(&cluster, &["-delay", "1"], Stdio::null());
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "{text}");
        assert_eq!(frames(&text).len(), 1, "{text}");
        assert_frame_shows(&frames(&text)[0], &app);
    }

    {
        tracing_phase("SIGINT ends a plain top cleanly");
        let mut top = TopProcess::spawn(&cluster, &["-delay", "1"], Stdio::piped());
        top.wait_for_output(&app);
        send_signal(top.child.0.id(), libc::SIGINT);
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "{text}");
    }

    {
        tracing_phase("on a terminal: raw mode, a single q quits, the terminal is restored");
        let pty = Pty::open(200, 40);
        let mut top = TopProcess::spawn_on(&cluster, &["-delay", "1"], &pty);
        top.wait_for_output(&app);
        eventually("raw mode", || (!pty.is_canonical()).then_some(()));
        pty.type_keys(b"q");
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "{text}");
        assert!(pty.is_canonical(), "raw mode was left");
        assert!(
            text.contains("\x1b[?1049h"),
            "the alternate screen was entered"
        );
        assert!(
            text.contains("\x1b[?1049l"),
            "the alternate screen was left"
        );
        assert!(text.contains("APPLICATIONID"), "{text:?}");
    }

    {
        tracing_phase("on a terminal: Ctrl-C as a key quits and restores the terminal");
        let pty = Pty::open(200, 40);
        let mut top = TopProcess::spawn_on(&cluster, &["-delay", "1"], &pty);
        top.wait_for_output(&app);
        eventually("raw mode", || (!pty.is_canonical()).then_some(()));
        pty.type_keys(b"\x03");
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "{text}");
        assert!(pty.is_canonical(), "raw mode was left");
    }

    {
        tracing_phase("on a terminal: SIGINT quits and restores the terminal");
        let pty = Pty::open(200, 40);
        let mut top = TopProcess::spawn_on(&cluster, &["-delay", "1"], &pty);
        top.wait_for_output(&app);
        eventually("raw mode", || (!pty.is_canonical()).then_some(()));
        send_signal(top.child.0.id(), libc::SIGINT);
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "{text}");
        assert!(pty.is_canonical(), "raw mode was left");
        assert!(
            text.contains("\x1b[?1049l"),
            "the alternate screen was left"
        );
    }

    {
        tracing_phase("after the leader's SIGKILL, the new leader's figures");
        let killed = cluster.kill_leader();
        let mut top = TopProcess::spawn(&cluster, &["--iterations", "1"], Stdio::null());
        let (status, text) = top.wait_for_exit(DEADLINE);
        assert_eq!(status.code(), Some(0), "after killing {killed}: {text}");
        // The new leader may still be recovering the queues' figures: the row is what counts.
        assert_row_shows(&frames(&text)[0], &app);
    }

    job.0.kill().expect("kill the dshell client");
    let _ = job.0.wait();
}

#[test]
fn top_exits_1_naming_the_failure_when_no_resourcemanager_answers() {
    // A laid-out cluster that was never started: nothing listens at its addresses.
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("cluster");
    let init = common::output(
        yarn_ha_command()
            .args(["minicluster", "init", "--rms", "1", "--dir"])
            .arg(&base),
    );
    assert_eq!(init.status.code(), Some(0), "{}", stderr(&init));
    let conf_dir = base.join("client/conf");
    let site = conf_dir.join("yarn-site.xml");
    let text = std::fs::read_to_string(&site).unwrap();
    // Give up after two tries rather than the default fifteen.
    let text = text.replace(
        "</configuration>",
        "  <property>\n    <name>yarn.client.failover-max-attempts</name>\n    \
         <value>2</value>\n  </property>\n</configuration>",
    );
    std::fs::write(&site, text).unwrap();
    let mut command = yarn_ha_command();
    command
        .arg("--conf-dir")
        .arg(&conf_dir)
        .args(["top", "--iterations", "1"])
        .stdin(Stdio::null());
    let mut top = TopProcess::start(command);
    let (status, text) = top.wait_for_exit(DEADLINE);
    assert_eq!(status.code(), Some(1), "{text}");
    assert!(
        text.starts_with(
            "YARN top - waiting for the first figures, queue(s): root\nRefresh failed: "
        ),
        "{text}"
    );
    let errors = top.stderr.lock().unwrap().clone();
    assert!(
        errors.contains("yarn-ha top: the last refresh failed: "),
        "{errors}"
    );
}

fn tracing_phase(what: &str) {
    eprintln!("--- {what}");
}

/// The frames of plain output: each starts with the header's first line.
fn frames(text: &str) -> Vec<String> {
    text.split("YARN top - ")
        .skip(1)
        .map(|frame| format!("YARN top - {frame}"))
        .collect()
}

/// Checks that `frame` holds the header of a one-node cluster running one application, the
/// column headers, and a row for `app`.
fn assert_frame_shows(frame: &str, app: &str) {
    let lines: Vec<&str> = frame.lines().collect();
    assert!(
        lines[0].contains(", up 0d, ") && lines[0].ends_with("queue(s): root"),
        "{frame}"
    );
    assert!(
        lines[1].starts_with("NodeManager(s): 1 total, 1 active, "),
        "{frame}"
    );
    assert!(
        lines[2].starts_with("Queue(s) Applications: 1 running, 1 submitted, "),
        "{frame}"
    );
    assert_row_shows(frame, app);
}

/// Checks that `frame` has the column headers and a row for `app` with its type, queue and
/// name.
fn assert_row_shows(frame: &str, app: &str) {
    let lines: Vec<&str> = frame.lines().collect();
    assert!(
        lines[7].trim_start().starts_with("APPLICATIONID USER"),
        "{frame}"
    );
    let row = lines
        .iter()
        .find(|line| line.contains(app))
        .unwrap_or_else(|| panic!("no row for {app}: {frame}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[0], app, "{row}");
    assert_eq!(cells[2], "yarn", "the type, lower-cased: {row}");
    assert_eq!(cells[3], "root.default", "{row}");
    assert_eq!(cells.last(), Some(&"DistributedShell"), "{row}");
}

fn send_signal(pid: u32, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(pid).unwrap();
    // SAFETY: kill(2) takes plain integers; the pid is a child this test started and has not
    // reaped.
    let result = unsafe { libc::kill(pid, signal) };
    assert_eq!(result, 0, "kill({pid}, {signal})");
}

/// A child killed and reaped when dropped, so a failed test leaves no process behind.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A running `yarn-ha top` whose output (stdout, or the terminal's output) and stderr are
/// collected as they come, so it never blocks on a full pipe.
struct TopProcess {
    child: KillOnDrop,
    output: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

impl TopProcess {
    /// `yarn-ha top args...` on the cluster, with `stdin`, stdout and stderr on pipes.
    fn spawn(cluster: &ProcessCluster, args: &[&str], stdin: Stdio) -> Self {
        let mut command = cluster.command(&[&["top"], args].concat());
        command.stdin(stdin);
        Self::start(command)
    }

    /// Starts `command` with stdout and stderr on pipes.
    fn start(mut command: std::process::Command) -> Self {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("yarn-ha top starts");
        let output = collect(child.stdout.take().expect("piped stdout"));
        let stderr = collect(child.stderr.take().expect("piped stderr"));
        Self {
            child: KillOnDrop(child),
            output,
            stderr,
        }
    }

    /// `yarn-ha top args...` on the cluster with stdin, stdout and stderr on `pty`.
    fn spawn_on(cluster: &ProcessCluster, args: &[&str], pty: &Pty) -> Self {
        let child = cluster
            .command(&[&["top"], args].concat())
            .stdin(pty.terminal())
            .stdout(pty.terminal())
            .stderr(pty.terminal())
            .spawn()
            .expect("yarn-ha top starts");
        Self {
            child: KillOnDrop(child),
            output: collect(pty.reader()),
            stderr: Arc::new(Mutex::new(String::new())),
        }
    }

    /// Waits until the output holds `text`.
    fn wait_for_output(&self, text: &str) {
        eventually(&format!("top to show {text}"), || {
            self.output.lock().unwrap().contains(text).then_some(())
        });
    }

    /// Waits at most `within` for the process to end and returns its status and output; kills
    /// it and fails the test past that.
    fn wait_for_exit(&mut self, within: Duration) -> (ExitStatus, String) {
        let deadline = Instant::now() + within;
        let status = loop {
            if let Some(status) = self.child.0.try_wait().expect("checking on top") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.0.kill();
                panic!(
                    "top did not end within {within:?}; output:\n{}\nstderr:\n{}",
                    self.output.lock().unwrap(),
                    self.stderr.lock().unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        // The pipes' last bytes: the readers finish at end of file (stdout), or within a
        // moment (a terminal, which stays open while this test holds it).
        std::thread::sleep(Duration::from_millis(200));
        let text = self.output.lock().unwrap().clone();
        eprintln!(
            "top ended with {status}; stderr:\n{}",
            self.stderr.lock().unwrap()
        );
        (status, text)
    }
}

/// Reads `source` to its end on a thread of its own into the returned text.
fn collect(mut source: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        // A terminal's master reports EIO once no one holds the terminal: an end too.
        while let Ok(read) = source.read(&mut buffer) {
            if read == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
    });
    text
}

/// A pseudo-terminal: the master this test types into and reads from, and the terminal side
/// `yarn-ha top` runs on.
struct Pty {
    master: OwnedFd,
    terminal: OwnedFd,
}

impl Pty {
    /// A new pseudo-terminal of `columns` by `rows`, in the default (canonical, echoing) mode.
    fn open(columns: u16, rows: u16) -> Self {
        // SAFETY: plain libc calls on descriptors this function owns; each result is checked
        // before its descriptor or name is used.
        unsafe {
            let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            assert!(master >= 0, "posix_openpt");
            let master = OwnedFd::from_raw_fd(master);
            assert_eq!(libc::grantpt(master.as_raw_fd()), 0, "grantpt");
            assert_eq!(libc::unlockpt(master.as_raw_fd()), 0, "unlockpt");
            let mut name = [0 as libc::c_char; 128];
            assert_eq!(
                libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()),
                0,
                "ptsname_r"
            );
            let terminal = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
            assert!(terminal >= 0, "open the terminal side");
            let terminal = OwnedFd::from_raw_fd(terminal);
            let size = libc::winsize {
                ws_row: rows,
                ws_col: columns,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            assert_eq!(
                libc::ioctl(terminal.as_raw_fd(), libc::TIOCSWINSZ, &size),
                0,
                "TIOCSWINSZ"
            );
            let pty = Self { master, terminal };
            assert!(pty.is_canonical(), "a new terminal is canonical");
            pty
        }
    }

    /// The terminal side, for a child's stdin, stdout or stderr.
    fn terminal(&self) -> Stdio {
        Stdio::from(self.terminal.try_clone().expect("a second terminal handle"))
    }

    /// A reader of what the child writes to the terminal.
    fn reader(&self) -> File {
        File::from(self.master.try_clone().expect("a second master handle"))
    }

    /// Types `keys` as a user at the terminal would.
    fn type_keys(&self, keys: &[u8]) {
        let mut master = File::from(self.master.try_clone().expect("a second master handle"));
        master.write_all(keys).expect("typing on the terminal");
    }

    /// Whether the terminal is in its cooked mode: lines edited and echoed (ICANON and ECHO),
    /// as raw mode is not.
    fn is_canonical(&self) -> bool {
        // SAFETY: tcgetattr fills the zeroed termios it is given from a descriptor this value
        // owns.
        let flags = unsafe {
            let mut termios: libc::termios = std::mem::zeroed();
            assert_eq!(
                libc::tcgetattr(self.terminal.as_raw_fd(), &mut termios),
                0,
                "tcgetattr"
            );
            termios.c_lflag
        };
        flags & libc::ICANON != 0 && flags & libc::ECHO != 0
    }
}

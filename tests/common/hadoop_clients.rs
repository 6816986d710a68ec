//! Hadoop's own Java clients against a cluster of real processes: where the jars are, the test
//! programs of `tests/hadoop/src` compiled once per test binary, a Hadoop client configuration
//! directory for a minicluster, and `java` / `spark-submit` runs under a deadline.
//!
//! The jars come from PyPI's pyspark source distributions, whose `deps/jars` hold Hadoop's
//! client jars and Spark's: `.ci/run` unpacks them into a cache and exports their directories
//! (see [`JarSet`]). Outside CI a missing JDK or jar set makes [`HadoopClients::find`] report
//! and return `None`; with `CI=true` it fails the test instead.
//!
//! ```text
//!  JarSet ─▶ <cache>/pyspark/pyspark-<v>/deps/jars ─▶ javac ─▶ target/tmp/hadoop-classes/<v>/
//!  ProcessCluster client conf ─▶ write_hadoop_conf ─▶ <dir>/{yarn,core}-site.xml, log4j2
//!  java -cp <conf dir>:<classes>:<jars> yarnha.<Program> ...  (JavaProcess: output, deadline)
//! ```

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use yarn_conf::keys;

/// The properties that make a minicluster serve Hadoop IPC on its RM and NM ports, to
/// YarnClient's claimed user names too; `ApplicationMasters` reach the ResourceManagers
/// directly, unless `amrmproxy` keeps the layout's AMRMProxy in front of them.
pub fn ipc_site(amrmproxy: bool) -> Vec<(String, String)> {
    let enabled = if amrmproxy { "true" } else { "false" };
    [
        (keys::HADOOP_IPC_ENABLED.name.as_ref(), "true"),
        (
            keys::HADOOP_IPC_SIMPLE_AUTHENTICATION_ENABLED.name.as_ref(),
            "true",
        ),
        (keys::AMRM_PROXY_ENABLED.name.as_ref(), enabled),
        // Distributed scheduling is the AMRMProxy's: it goes with it.
        (keys::DIST_SCHEDULING_ENABLED.name.as_ref(), enabled),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect()
}

/// One version of Hadoop's client jars (and the Spark that came with them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JarSet {
    /// pyspark 4.3.0: Hadoop 3.5.0's client jars, Spark 4.3.0 (Scala 2.13).
    Hadoop35,
    /// pyspark 3.5.9: Hadoop 3.3.4's client jars, Spark 3.5.9 (Scala 2.12).
    Hadoop33,
}

impl JarSet {
    /// The variable `.ci/run` exports with the set's jars directory.
    pub fn env_var(self) -> &'static str {
        match self {
            JarSet::Hadoop35 => "YARN_HA_HADOOP_JARS",
            JarSet::Hadoop33 => "YARN_HA_HADOOP_JARS_33",
        }
    }

    fn pyspark_version(self) -> &'static str {
        match self {
            JarSet::Hadoop35 => "4.3.0",
            JarSet::Hadoop33 => "3.5.9",
        }
    }

    /// The jars directory: the variable's value, or the default cache `.ci/run` fills
    /// (`${YARN_HA_CACHE:-$HOME/.cache/yarn-ha}/pyspark/pyspark-<v>/deps/jars`).
    pub fn jars_dir(self) -> PathBuf {
        if let Some(dir) = std::env::var_os(self.env_var()).filter(|dir| !dir.is_empty()) {
            return PathBuf::from(dir);
        }
        let cache = std::env::var_os("YARN_HA_CACHE")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/yarn-ha")
            });
        cache.join(format!(
            "pyspark/pyspark-{}/deps/jars",
            self.pyspark_version()
        ))
    }
}

/// How long compiling the test programs may take.
const JAVAC_DEADLINE: Duration = Duration::from_secs(300);

/// A jar set with the test programs compiled against it.
#[derive(Debug, Clone)]
pub struct HadoopClients {
    /// The set.
    pub set: JarSet,
    /// Its jars directory (`deps/jars`).
    pub jars: PathBuf,
    /// The compiled test programs.
    pub classes: PathBuf,
    /// The same classes as a jar, for spark-submit.
    pub app_jar: PathBuf,
}

impl HadoopClients {
    /// The jar set with the test programs compiled, or `None` (after saying why) when the JDK
    /// or the jars are missing outside CI. Compiles once per test binary and set.
    ///
    /// # Panics
    ///
    /// With `CI=true`, when the JDK or the jars are missing; always, when javac fails.
    pub fn find(set: JarSet) -> Option<HadoopClients> {
        static COMPILED: Mutex<Vec<(JarSet, HadoopClients)>> = Mutex::new(Vec::new());
        let mut compiled = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, clients)) = compiled.iter().find(|(s, _)| *s == set) {
            return Some(clients.clone());
        }
        let jars = set.jars_dir();
        let missing = if !has_javac() {
            Some("no javac on the PATH (Debian's openjdk-17-jdk-headless)".to_owned())
        } else if jar_name(&jars, "hadoop-client-api-").is_none() {
            Some(format!(
                "no Hadoop client jars in {} (set {} or run .ci/run, which unpacks pyspark {}'s \
                 deps into its cache)",
                jars.display(),
                set.env_var(),
                set.pyspark_version()
            ))
        } else {
            None
        };
        if let Some(missing) = missing {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "the Hadoop client test needs its JDK and jars in CI: {missing}"
            );
            eprintln!("skipping the Hadoop client scenario: {missing}");
            return None;
        }
        let clients = compile(set, &jars);
        compiled.push((set, clients.clone()));
        Some(clients)
    }

    /// The jars the YarnClient, AM and NM programs need, with a log4j2 binding when the set has
    /// one (quieted by the configuration directory's `log4j2.properties`).
    fn hadoop_jars(&self) -> Vec<PathBuf> {
        [
            "hadoop-client-api-",
            "hadoop-client-runtime-",
            "slf4j-api-",
            "jcl-over-slf4j-",
            "log4j-slf4j2-impl-",
            "log4j-api-",
            "log4j-core-",
        ]
        .iter()
        .filter_map(|prefix| jar_name(&self.jars, prefix))
        .map(|name| self.jars.join(name))
        .collect()
    }

    /// `<conf dir>:<classes>:<jars>`: what the submitter and the AMs it launches run with.
    pub fn classpath(&self, conf_dir: &Path) -> String {
        let mut entries = vec![conf_dir.to_path_buf(), self.classes.clone()];
        entries.extend(self.hadoop_jars());
        join_paths(&entries)
    }

    /// Starts `java -cp <classpath> yarnha.<program> args...` with `HADOOP_CONF_DIR=conf_dir`.
    pub fn spawn_java(&self, conf_dir: &Path, program: &str, args: &[&str]) -> JavaProcess {
        self.spawn_main(conf_dir, &format!("yarnha.{program}"), args)
    }

    /// Starts `java -cp <classpath> <main_class> args...` with `HADOOP_CONF_DIR=conf_dir`: one
    /// of this repository's programs, or one of Hadoop's own (its CLIs).
    pub fn spawn_main(&self, conf_dir: &Path, main_class: &str, args: &[&str]) -> JavaProcess {
        let mut command = Command::new("java");
        command
            .arg("-Xmx256m")
            .arg("-cp")
            .arg(self.classpath(conf_dir))
            .arg(main_class)
            .args(args)
            .env("HADOOP_CONF_DIR", conf_dir);
        JavaProcess::spawn(command, &format!("{main_class} {}", args.join(" ")))
    }

    /// Runs `yarnha.<program>` to its end, killed after `deadline`.
    pub fn run_java(
        &self,
        conf_dir: &Path,
        program: &str,
        args: &[&str],
        deadline: Duration,
    ) -> JavaRun {
        self.spawn_java(conf_dir, program, args).finish(deadline)
    }

    /// `SPARK_HOME`: the set's `deps` directory (it has `bin/` and `jars/`).
    pub fn spark_home(&self) -> PathBuf {
        self.jars
            .parent()
            .expect("a jars directory has a parent")
            .to_path_buf()
    }

    /// Runs `spark-submit` with `HADOOP_CONF_DIR=conf_dir`, the YARN settings every run needs
    /// (Spark's jars used in place, JAVA_HOME for the AM and executors, small memory), then
    /// `args`, killed after `deadline`.
    pub fn spark_submit(&self, conf_dir: &Path, args: &[&str], deadline: Duration) -> JavaRun {
        self.spawn_spark_submit(conf_dir, args).finish(deadline)
    }

    /// Starts `spark-submit` as [`spark_submit`](Self::spark_submit) runs it.
    pub fn spawn_spark_submit(&self, conf_dir: &Path, args: &[&str]) -> JavaProcess {
        let spark_home = self.spark_home();
        let java_home = java_home();
        let spark_conf = conf_dir.join("spark-conf");
        std::fs::create_dir_all(&spark_conf).expect("an empty SPARK_CONF_DIR");
        let mut command = Command::new(spark_home.join("bin/spark-submit"));
        command
            .env("SPARK_HOME", &spark_home)
            .env("SPARK_CONF_DIR", &spark_conf)
            .env("HADOOP_CONF_DIR", conf_dir)
            .env("JAVA_HOME", &java_home)
            .env("SPARK_LOCAL_IP", "127.0.0.1")
            .args(["--master", "yarn"])
            .arg("--conf")
            .arg(format!(
                "spark.yarn.jars=local:{}/*",
                spark_home.join("jars").display()
            ))
            .args(["--conf", "spark.yarn.populateHadoopClasspath=false"])
            .args(["--conf", "spark.yarn.maxAppAttempts=1"])
            .arg("--conf")
            .arg(format!(
                "spark.yarn.appMasterEnv.JAVA_HOME={}",
                java_home.display()
            ))
            .arg("--conf")
            .arg(format!(
                "spark.executorEnv.JAVA_HOME={}",
                java_home.display()
            ))
            .args(["--driver-memory", "512m", "--executor-memory", "512m"])
            .args(["--conf", "spark.yarn.am.memory=512m"])
            .args(["--num-executors", "1", "--executor-cores", "1"])
            .args(args);
        JavaProcess::spawn(command, &format!("spark-submit {}", args.join(" ")))
    }
}

/// Writes the Hadoop client configuration of the cluster whose yarn-ha client configuration is
/// in `yarn_ha_conf_dir` into `out`, as an operator would: `yarn-ha conf hadoop-client` (with
/// `--amrmproxy` when AMs talk to that AMRMProxy), then this test's quicker failover and
/// NodeManager retries and a quiet `log4j2.properties`.
pub fn write_hadoop_conf(yarn_ha_conf_dir: &Path, out: &Path, amrmproxy: Option<&str>) {
    let mut command = super::yarn_ha_command();
    command
        .arg("--conf-dir")
        .arg(yarn_ha_conf_dir)
        .args(["conf", "hadoop-client", "--out"])
        .arg(out);
    if let Some(address) = amrmproxy {
        command.args(["--amrmproxy", address]);
    }
    let output = command.output().expect("yarn-ha runs");
    assert!(
        output.status.success(),
        "yarn-ha conf hadoop-client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Fail over quickly while a new leader is elected (about a minute in all), and give up on
    // a NodeManager after 30 s rather than Hadoop's 3 min.
    let tuning = yarn_conf::writer::site_xml([
        ("yarn.client.failover-sleep-base-ms", "200"),
        ("yarn.client.failover-sleep-max-ms", "1000"),
        ("yarn.client.failover-max-attempts", "60"),
        ("yarn.resourcemanager.connect.max-wait.ms", "60000"),
        ("yarn.resourcemanager.connect.retry-interval.ms", "500"),
        ("yarn.client.nodemanager-connect.max-wait-ms", "30000"),
        ("yarn.client.nodemanager-connect.retry-interval-ms", "200"),
    ]);
    let site_path = out.join("yarn-site.xml");
    let site = std::fs::read_to_string(&site_path).expect("the written yarn-site.xml");
    let properties = |xml: &str| {
        let start = xml.find("<configuration>").expect("a configuration") + "<configuration>".len();
        let end = xml.rfind("</configuration>").expect("its end");
        xml[start..end].to_owned()
    };
    let merged = site.replace(
        "</configuration>",
        &format!(
            "{}</configuration>",
            properties(&tuning).trim_start_matches('\n')
        ),
    );
    std::fs::write(&site_path, merged).expect("yarn-site.xml");
    std::fs::write(out.join("log4j2.properties"), LOG4J2).expect("log4j2.properties");
}

/// Warnings only, on stderr, but Hadoop's client failover and retry lines and Spark's
/// application reports (`final status: ...`).
const LOG4J2: &str = "\
status = error
appender.console.type = Console
appender.console.name = stderr
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = stderr
logger.failover.name = org.apache.hadoop.yarn.client
logger.failover.level = info
logger.retry.name = org.apache.hadoop.io.retry
logger.retry.level = info
logger.spark.name = org.apache.spark.deploy.yarn.Client
logger.spark.level = info
";

/// A finished `java` or `spark-submit` run.
#[derive(Debug)]
pub struct JavaRun {
    /// What ran, for messages.
    pub what: String,
    /// Its exit status; `None` when it was killed at its deadline.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
}

impl JavaRun {
    /// Its exit code (`None` when killed at the deadline or by a signal).
    pub fn code(&self) -> Option<i32> {
        self.status.and_then(|status| status.code())
    }

    /// The rest of the first stdout line starting with `key ` (the programs' `KEY value`
    /// lines).
    pub fn value(&self, key: &str) -> Option<&str> {
        self.values(key).next()
    }

    /// The rest of every stdout line starting with `key `.
    pub fn values(&self, key: &str) -> impl Iterator<Item = &str> + '_ {
        let key = format!("{key} ");
        self.stdout
            .lines()
            .filter_map(move |line| line.strip_prefix(key.as_str()))
    }

    /// Fails the test unless the run exited 0, quoting its output.
    pub fn assert_success(&self) {
        assert_eq!(self.code(), Some(0), "{self}");
    }
}

impl std::fmt::Display for JavaRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = match self.status {
            Some(status) => status.to_string(),
            None => "killed at its deadline".to_owned(),
        };
        write!(
            f,
            "{}: {status}\n--- stdout\n{}\n--- errors in stderr\n{}\n--- stderr\n{}",
            self.what,
            self.stdout,
            error_lines(&self.stderr, 40),
            tail(&self.stderr, 12_000)
        )
    }
}

/// A running `java` (or `spark-submit`) in a process group of its own, its output collected as
/// it comes.
pub struct JavaProcess {
    what: String,
    child: Child,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl JavaProcess {
    fn spawn(mut command: Command, what: &str) -> JavaProcess {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|err| panic!("{what} starts: {err}"));
        let stdout = Arc::new(Mutex::new(String::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let readers = vec![
            collect(child.stdout.take().expect("piped"), stdout.clone()),
            collect(child.stderr.take().expect("piped"), stderr.clone()),
        ];
        JavaProcess {
            what: what.to_owned(),
            child,
            stdout,
            stderr,
            readers,
        }
    }

    /// Waits until a stdout line starts with `prefix` and returns it; fails the test, quoting
    /// the output so far, if the process ends first or `deadline` passes.
    pub fn wait_for_line(&mut self, prefix: &str, deadline: Duration) -> String {
        self.wait_for(prefix, deadline, |stdout, _| {
            stdout
                .lines()
                .find(|line| line.starts_with(prefix))
                .map(str::to_owned)
        })
    }

    /// Waits until a line of either stream contains `needle` (a log line, say) and returns it,
    /// failing as [`wait_for_line`](Self::wait_for_line) does.
    pub fn wait_for_text(&mut self, needle: &str, deadline: Duration) -> String {
        self.wait_for(needle, deadline, |stdout, stderr| {
            stdout
                .lines()
                .chain(stderr.lines())
                .find(|line| line.contains(needle))
                .map(str::to_owned)
        })
    }

    fn wait_for(
        &mut self,
        what: &str,
        deadline: Duration,
        find: impl Fn(&str, &str) -> Option<String>,
    ) -> String {
        let started = Instant::now();
        loop {
            let found = find(&self.stdout.lock().unwrap(), &self.stderr.lock().unwrap());
            if let Some(line) = found {
                return line;
            }
            let ended = self.child.try_wait().expect("waitable").is_some();
            if ended || started.elapsed() > deadline {
                let what = format!("{} never printed {what:?}", self.what);
                let run = self.finish(Duration::ZERO);
                panic!("{what}: {run}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits for the end, killing the process group after `deadline`.
    pub fn finish(&mut self, deadline: Duration) -> JavaRun {
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waitable") {
                break Some(status);
            }
            if started.elapsed() >= deadline {
                self.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        JavaRun {
            what: self.what.clone(),
            status,
            stdout: self.stdout.lock().unwrap().clone(),
            stderr: self.stderr.lock().unwrap().clone(),
        }
    }

    fn kill(&mut self) {
        if let Ok(group) = i32::try_from(self.child.id()) {
            // SAFETY: signals the process group this harness created for the child.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
        let _ = self.child.wait();
    }
}

impl Drop for JavaProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}

/// Copies `from` into `into` line by line on a thread of its own.
fn collect(
    from: impl Read + Send + 'static,
    into: Arc<Mutex<String>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let mut text = into.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
        }
    })
}

/// Every container log file (`stdout`, `stderr`, ...) of application `app_id` under the
/// cluster's directory, as `== <path>` followed by its text.
pub fn container_logs(cluster_dir: &Path, app_id: &str) -> String {
    let mut out = String::new();
    let mut pending = vec![cluster_dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.components().any(|c| c.as_os_str() == app_id)
                && path.components().any(|c| c.as_os_str() == "container-logs")
            {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                out.push_str(&format!("== {}\n{text}\n", path.display()));
            }
        }
    }
    out
}

fn has_javac() -> bool {
    Command::new("javac")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The JDK the harness runs (`java.home` of `java` on the PATH), for containers.
fn java_home() -> PathBuf {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let out = Command::new("java")
            .args(["-XshowSettings:properties", "-version"])
            .output()
            .expect("java runs");
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .find_map(|line| line.trim().strip_prefix("java.home = ").map(PathBuf::from))
            .expect("java -XshowSettings:properties prints java.home")
    })
    .clone()
}

/// The file name in `dir` starting with `prefix` and ending in `.jar`, if any.
fn jar_name(dir: &Path, prefix: &str) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| {
            name.starts_with(prefix)
                && name.ends_with(".jar")
                && name[prefix.len()..].starts_with(|c: char| c.is_ascii_digit())
        })
        .collect();
    names.sort();
    names.pop()
}

fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|path| path.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// The first `max` lines of `text` that report an error or its cause: a run's first failure is
/// often far above the tail of its stderr, behind repeated warnings.
fn error_lines(text: &str, max: usize) -> String {
    text.lines()
        .filter(|line| {
            line.contains(" ERROR ")
                || line.contains("Exception:")
                || line.starts_with("Caused by:")
                || line.starts_with("Exception in thread")
        })
        .take(max)
        .collect::<Vec<_>>()
        .join("\n")
}

fn tail(text: &str, max: usize) -> &str {
    let start = text.len().saturating_sub(max);
    let start = (start..text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(text.len());
    &text[start..]
}

/// Compiles `tests/hadoop/src` against `jars` into `target/tmp/hadoop-classes/<v>/` and jars
/// it; the Hadoop programs against the four client jars only, SparkPi against all of them.
fn compile(set: JarSet, jars: &Path) -> HadoopClients {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hadoop/src/yarnha");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hadoop-classes")
        .join(set.pyspark_version());
    let classes = out.join("classes");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&classes).expect("the classes directory");
    let client_jars: Vec<PathBuf> = [
        "hadoop-client-api-",
        "hadoop-client-runtime-",
        "slf4j-api-",
        "jcl-over-slf4j-",
    ]
    .iter()
    .map(|prefix| {
        jars.join(
            jar_name(jars, prefix)
                .unwrap_or_else(|| panic!("no {prefix}*.jar in {}", jars.display())),
        )
    })
    .collect();
    let hadoop_sources = [
        "Args",
        "SubmitShellApp",
        "ShellAm",
        "ForgedTokenAm",
        "Reservations",
    ]
    .map(|name| sources.join(format!("{name}.java")));
    javac(&classes, &join_paths(&client_jars), &hadoop_sources);
    let spark_classpath = format!("{}:{}/*", classes.display(), jars.display());
    javac(&classes, &spark_classpath, &[sources.join("SparkPi.java")]);
    let app_jar = out.join("yarnha-tests.jar");
    let mut jar = Command::new("jar");
    jar.arg("cf").arg(&app_jar).arg("-C").arg(&classes).arg(".");
    let run = JavaProcess::spawn(jar, "jar cf yarnha-tests.jar").finish(JAVAC_DEADLINE);
    run.assert_success();
    HadoopClients {
        set,
        jars: jars.to_path_buf(),
        classes,
        app_jar,
    }
}

fn javac(classes: &Path, classpath: &str, sources: &[PathBuf]) {
    let mut command = Command::new("javac");
    command
        .args(["-Xlint:all,-path", "-Werror", "-d"])
        .arg(classes)
        .arg("-cp")
        .arg(classpath)
        .args(sources);
    let run = JavaProcess::spawn(command, "javac").finish(JAVAC_DEADLINE);
    assert_eq!(run.code(), Some(0), "the Java test programs compile: {run}");
}

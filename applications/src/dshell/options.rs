//! [`DshellOptions`]: what a distributed-shell run does, parsed from Hadoop's `dshell` flags and
//! carried to the ApplicationMaster as the same flags.

use std::time::Duration;

use yarn_proto::pb;

use super::option_words::{Item, OptionWords, escape_for_launch_script, invalid, parse_at_least};
use crate::Error;

/// The command named in option errors.
const COMMAND: &str = "dshell";

/// Every option [`DshellOptions::parse_args`] knows, as Hadoop spells them.
const KNOWN: &[&str] = &[
    "--shell_command",
    "--shell_args",
    "--shell_env",
    "--num_containers",
    "--container_memory",
    "--container_vcores",
    "--container_type",
    "--promote_opportunistic_after_start",
    "--enforce_execution_type",
    "--queue",
    "--priority",
    "--master_memory",
    "--master_vcores",
    "--appname",
    "--timeout",
    "--node_label_expression",
];

/// The execution types `--container_type` accepts.
const EXECUTION_TYPES: &str = "GUARANTEED or OPPORTUNISTIC";

/// What a distributed-shell application runs and how, with Hadoop's defaults.
///
/// [`parse_args`](Self::parse_args) reads Hadoop's flags; [`to_am_args`](Self::to_am_args)
/// writes them back for the ApplicationMaster, and parsing those gives back equal options.
#[derive(Debug, Clone, PartialEq)]
pub struct DshellOptions {
    /// The shell command each container runs (`--shell_command`), as shell text.
    pub shell_command: String,
    /// Words appended to the command, separated by spaces (`--shell_args`, repeatable).
    pub shell_args: Vec<String>,
    /// Variables set in each container (`--shell_env NAME=VALUE`, repeatable), in order.
    pub shell_env: Vec<(String, String)>,
    /// How many containers run the command (`--num_containers`, default 1).
    pub num_containers: u32,
    /// Memory of each container in MB (`--container_memory`, default 10 as in Hadoop).
    pub container_memory_mb: i64,
    /// Virtual cores of each container (`--container_vcores`, default 1).
    pub container_vcores: i32,
    /// The execution type asked for (`--container_type`, default GUARANTEED).
    pub container_type: pb::ExecutionTypeProto,
    /// Promote OPPORTUNISTIC containers to GUARANTEED once started
    /// (`--promote_opportunistic_after_start`), through the RM's `PROMOTE_EXECUTION_TYPE`
    /// container update; meaningful with `--container_type OPPORTUNISTIC`.
    pub promote_opportunistic_after_start: bool,
    /// Ask the scheduler to honour `--container_type` exactly (`--enforce_execution_type`).
    /// Without it an OPPORTUNISTIC ask gets GUARANTEED containers from a ResourceManager that
    /// allocates no OPPORTUNISTIC ones; with it that ResourceManager refuses the ask (the
    /// ApplicationMaster's allocate fails, naming the setting to turn on), and the
    /// ApplicationMaster never counts a container of the other type against it.
    pub enforce_execution_type: bool,
    /// The queue to submit to (`--queue`, default `default`).
    pub queue: String,
    /// The application's priority (`--priority`, default 0).
    pub priority: i32,
    /// Memory of the ApplicationMaster's container in MB (`--master_memory`, default 128).
    pub master_memory_mb: i64,
    /// Virtual cores of the ApplicationMaster's container (`--master_vcores`, default 1).
    pub master_vcores: i32,
    /// The application's name (`--appname`, default `DistributedShell`).
    pub appname: String,
    /// The partition the ApplicationMaster and every container go to
    /// (`--node_label_expression`, one label); empty, the default, leaves it to the queue's
    /// `default-node-label-expression`.
    pub node_label_expression: String,
    /// How long the client waits for the application before killing it (`--timeout`, in ms;
    /// default 600000 as in Hadoop).
    pub timeout: Duration,
}

impl DshellOptions {
    /// Options running `shell_command` with every other setting at its default.
    pub fn new(shell_command: impl Into<String>) -> Self {
        Self {
            shell_command: shell_command.into(),
            shell_args: Vec::new(),
            shell_env: Vec::new(),
            num_containers: 1,
            container_memory_mb: 10,
            container_vcores: 1,
            container_type: pb::ExecutionTypeProto::Guaranteed,
            promote_opportunistic_after_start: false,
            enforce_execution_type: false,
            queue: "default".to_owned(),
            priority: 0,
            master_memory_mb: 128,
            master_vcores: 1,
            appname: "DistributedShell".to_owned(),
            node_label_expression: String::new(),
            timeout: Duration::from_millis(600_000),
        }
    }

    /// Reads Hadoop's `dshell` flags (`-shell_command`, `--num_containers 2`,
    /// `--shell_env=A=B`, ...) and validates the result.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownOption`] listing the known ones, [`Error::UnexpectedArgument`],
    /// [`Error::OptionValueMissing`], [`Error::InvalidOptionValue`] naming the option, the value
    /// and what was expected, [`Error::OptionMissing`] without `--shell_command`, and those of
    /// [`validate`](Self::validate).
    pub fn parse_args(args: &[String]) -> Result<Self, Error> {
        let mut options = Self::new(String::new());
        let mut shell_command = None;
        let mut words = OptionWords::new(COMMAND, args);
        while let Some(item) = words.next_item() {
            let (name, attached) = match item {
                Item::Option { name, attached } => (name, attached),
                Item::Positional(word) => return Err(words.unexpected(word)),
            };
            match name {
                "promote_opportunistic_after_start" => {
                    options.promote_opportunistic_after_start = words.switch(name, attached)?;
                    continue;
                }
                "enforce_execution_type" => {
                    options.enforce_execution_type = words.switch(name, attached)?;
                    continue;
                }
                _ => {}
            }
            if !KNOWN.contains(&format!("--{name}").as_str()) {
                return Err(words.unknown(name, KNOWN));
            }
            let value = words.value(name, attached)?;
            match name {
                "shell_command" => shell_command = Some(value.to_owned()),
                "shell_args" => options.shell_args.push(value.to_owned()),
                "shell_env" => options.shell_env.push(parse_shell_env(value)?),
                "num_containers" => options.num_containers = parse_at_least(name, value, 1)?,
                "container_memory" => options.container_memory_mb = parse_at_least(name, value, 1)?,
                "container_vcores" => options.container_vcores = parse_at_least(name, value, 1)?,
                "container_type" => options.container_type = parse_execution_type(value)?,
                "queue" => options.queue = parse_non_empty(name, value)?,
                "priority" => {
                    options.priority = value
                        .trim()
                        .parse()
                        .map_err(|_| invalid(name, value, "a whole number"))?;
                }
                "master_memory" => options.master_memory_mb = parse_at_least(name, value, 1)?,
                "master_vcores" => options.master_vcores = parse_at_least(name, value, 1)?,
                "appname" => options.appname = parse_non_empty(name, value)?,
                "node_label_expression" => options.node_label_expression = value.trim().to_owned(),
                "timeout" => {
                    options.timeout = Duration::from_millis(parse_at_least(name, value, 1)?);
                }
                _ => return Err(words.unknown(name, KNOWN)),
            }
        }
        options.shell_command = shell_command.ok_or(Error::OptionMissing {
            command: COMMAND,
            option: "--shell_command",
        })?;
        options.validate()?;
        Ok(options)
    }

    /// Checks what the types allow but a run cannot use.
    ///
    /// # Errors
    ///
    /// [`Error::OptionMissing`] for an empty shell command; [`Error::InvalidOptionValue`] for a
    /// count, size or timeout of zero, an empty queue or name, an execution type other than
    /// GUARANTEED or OPPORTUNISTIC, or an environment variable without a name.
    pub fn validate(&self) -> Result<(), Error> {
        if self.shell_command.trim().is_empty() {
            return Err(Error::OptionMissing {
                command: COMMAND,
                option: "--shell_command",
            });
        }
        let positive = [
            ("num_containers", i64::from(self.num_containers)),
            ("container_memory", self.container_memory_mb),
            ("container_vcores", i64::from(self.container_vcores)),
            ("master_memory", self.master_memory_mb),
            ("master_vcores", i64::from(self.master_vcores)),
        ];
        for (name, value) in positive {
            if value < 1 {
                return Err(invalid(
                    name,
                    &value.to_string(),
                    "a whole number of at least 1",
                ));
            }
        }
        if self.timeout.is_zero() {
            return Err(invalid("timeout", "0", "a whole number of at least 1"));
        }
        parse_non_empty("queue", &self.queue)?;
        parse_non_empty("appname", &self.appname)?;
        if !matches!(
            self.container_type,
            pb::ExecutionTypeProto::Guaranteed | pb::ExecutionTypeProto::Opportunistic
        ) {
            return Err(invalid(
                "container_type",
                self.container_type.as_str_name(),
                EXECUTION_TYPES,
            ));
        }
        if let Some((name, value)) = self
            .shell_env
            .iter()
            .find(|(name, _)| !valid_env_name(name))
        {
            return Err(invalid(
                "shell_env",
                &format!("{name}={value}"),
                ENV_EXPECTED,
            ));
        }
        Ok(())
    }

    /// The options as the flags [`parse_args`](Self::parse_args) reads, one `--name=value`
    /// word each, for the ApplicationMaster's command line.
    ///
    /// The `--name=value` form keeps a value such as `-la` attached to its option, and a word
    /// starting with `--` is left alone by the binary's rewriting of Hadoop's single-dash
    /// options. Quote each word with care: the words still contain spaces and quotes.
    pub fn to_am_args(&self) -> Vec<String> {
        let mut args = vec![format!("--shell_command={}", self.shell_command)];
        args.extend(
            self.shell_args
                .iter()
                .map(|arg| format!("--shell_args={arg}")),
        );
        args.extend(
            self.shell_env
                .iter()
                .map(|(name, value)| format!("--shell_env={name}={value}")),
        );
        args.extend([
            format!("--num_containers={}", self.num_containers),
            format!("--container_memory={}", self.container_memory_mb),
            format!("--container_vcores={}", self.container_vcores),
            format!("--container_type={}", self.container_type.as_str_name()),
        ]);
        if self.promote_opportunistic_after_start {
            args.push("--promote_opportunistic_after_start".to_owned());
        }
        if self.enforce_execution_type {
            args.push("--enforce_execution_type".to_owned());
        }
        args.extend([
            format!("--queue={}", self.queue),
            format!("--priority={}", self.priority),
            format!("--master_memory={}", self.master_memory_mb),
            format!("--master_vcores={}", self.master_vcores),
            format!("--appname={}", self.appname),
            format!("--timeout={}", self.timeout.as_millis()),
        ]);
        if !self.node_label_expression.is_empty() {
            args.push(format!(
                "--node_label_expression={}",
                self.node_label_expression
            ));
        }
        args
    }

    /// The command line each container runs: the shell command and its arguments, as shell
    /// text, in a subshell whose output goes to the container's log directory.
    ///
    /// The subshell makes the redirections cover every part of a compound command (`a; b`) and
    /// its exit status that of the last part, as a user would expect; the newline before `)`
    /// keeps a trailing `#` comment from swallowing the parenthesis. The shell text is escaped
    /// for the double quotes the launch script runs it in, so that bash sees it as written.
    pub fn container_command(&self) -> String {
        let mut command = self.shell_command.clone();
        for arg in &self.shell_args {
            command.push(' ');
            command.push_str(arg);
        }
        format!(
            "(\n{}\n) 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr",
            escape_for_launch_script(&command)
        )
    }
}

/// What a `--shell_env` value must look like.
const ENV_EXPECTED: &str = "NAME=VALUE with a NAME of letters, digits and '_', not starting with \
                            a digit";

/// One `--shell_env` value, `NAME=VALUE` (the value may be empty and may hold `=`).
///
/// # Errors
///
/// [`Error::InvalidOptionValue`] without `=` or with a name that is no environment variable
/// name.
pub fn parse_shell_env(value: &str) -> Result<(String, String), Error> {
    match value.split_once('=') {
        Some((name, text)) if valid_env_name(name) => Ok((name.to_owned(), text.to_owned())),
        _ => Err(invalid("shell_env", value, ENV_EXPECTED)),
    }
}

/// An execution type by name, ignoring case: `GUARANTEED` or `OPPORTUNISTIC`.
///
/// # Errors
///
/// [`Error::InvalidOptionValue`] naming the value and the two allowed.
pub fn parse_execution_type(value: &str) -> Result<pb::ExecutionTypeProto, Error> {
    match value.trim().to_ascii_uppercase().as_str() {
        "GUARANTEED" => Ok(pb::ExecutionTypeProto::Guaranteed),
        "OPPORTUNISTIC" => Ok(pb::ExecutionTypeProto::Opportunistic),
        _ => Err(invalid("container_type", value, EXECUTION_TYPES)),
    }
}

fn parse_non_empty(name: &str, value: &str) -> Result<String, Error> {
    if value.trim().is_empty() {
        return Err(invalid(name, value, "a non-empty name"));
    }
    Ok(value.to_owned())
}

fn valid_env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| (*word).to_owned()).collect()
    }

    fn parse_err(words: &[&str]) -> String {
        DshellOptions::parse_args(&args(words))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn hadoop_flags_in_every_spelling_set_every_field() {
        let options = DshellOptions::parse_args(&args(&[
            "-shell_command",
            "ls",
            "--shell_args",
            "-la",
            "--shell_args=/tmp",
            "-shell_env",
            "A=1",
            "--shell_env=B=x=y",
            "--num_containers",
            "3",
            "--container_memory=256",
            "--container_vcores=2",
            "--container_type",
            "opportunistic",
            "--enforce_execution_type",
            "--queue=root.a",
            "--priority=-2",
            "--master_memory=512",
            "--master_vcores=2",
            "--appname=ls-all",
            "--timeout=5000",
            "--node_label_expression=GPU",
        ]))
        .unwrap();
        assert_eq!(
            options,
            DshellOptions {
                shell_command: "ls".to_owned(),
                shell_args: vec!["-la".to_owned(), "/tmp".to_owned()],
                shell_env: vec![
                    ("A".to_owned(), "1".to_owned()),
                    ("B".to_owned(), "x=y".to_owned())
                ],
                num_containers: 3,
                container_memory_mb: 256,
                container_vcores: 2,
                container_type: pb::ExecutionTypeProto::Opportunistic,
                promote_opportunistic_after_start: false,
                enforce_execution_type: true,
                queue: "root.a".to_owned(),
                priority: -2,
                master_memory_mb: 512,
                master_vcores: 2,
                appname: "ls-all".to_owned(),
                node_label_expression: "GPU".to_owned(),
                timeout: Duration::from_millis(5000),
            }
        );
    }

    #[test]
    fn defaults_are_hadoops() {
        let options = DshellOptions::parse_args(&args(&["--shell_command=date"])).unwrap();
        assert_eq!(options, DshellOptions::new("date"));
        assert_eq!(options.num_containers, 1);
        assert_eq!(options.container_memory_mb, 10);
        assert_eq!(options.queue, "default");
        assert_eq!(options.appname, "DistributedShell");
        assert_eq!(options.timeout, Duration::from_secs(600));
    }

    #[test]
    fn bad_options_are_refused_naming_the_option_the_value_and_what_was_expected() {
        assert_eq!(
            parse_err(&["--shell_command=ls", "--num_containers=0"]),
            "invalid value \"0\" for option --num_containers: expected a whole number of at \
             least 1"
        );
        assert_eq!(
            parse_err(&["--shell_command=ls", "--shell_env", "NOEQUALS"]),
            format!("invalid value \"NOEQUALS\" for option --shell_env: expected {ENV_EXPECTED}")
        );
        assert_eq!(
            parse_err(&["--shell_command=ls", "--shell_env==x"]),
            format!("invalid value \"=x\" for option --shell_env: expected {ENV_EXPECTED}")
        );
        assert_eq!(
            parse_err(&["--shell_command=ls", "--container_type=SPOT"]),
            "invalid value \"SPOT\" for option --container_type: expected GUARANTEED or \
             OPPORTUNISTIC"
        );
        assert_eq!(
            parse_err(&["--shell_command=ls", "--priority=high"]),
            "invalid value \"high\" for option --priority: expected a whole number"
        );
        assert_eq!(
            parse_err(&["--num_containers=2"]),
            "dshell needs --shell_command"
        );
        assert_eq!(
            parse_err(&["--shell_command=ls", "stray"]),
            "dshell: unexpected argument \"stray\""
        );
        assert_eq!(
            parse_err(&["--shell_command=ls", "--shell_script=x.sh"]),
            format!(
                "unknown option \"--shell_script\" for dshell: expected one of {}",
                KNOWN.join(", ")
            )
        );
    }

    #[test]
    fn the_am_args_parse_back_to_the_same_options() {
        let mut options = DshellOptions::new("echo \"it's $HOME\" | tr a-z A-Z; exit 3");
        options.shell_args = vec!["-la".to_owned(), "two words".to_owned(), String::new()];
        options.shell_env = vec![
            ("GREETING".to_owned(), "hello 'world'".to_owned()),
            ("EMPTY".to_owned(), String::new()),
        ];
        options.num_containers = 4;
        options.container_type = pb::ExecutionTypeProto::Opportunistic;
        options.enforce_execution_type = true;
        options.priority = -1;
        options.appname = "my app".to_owned();
        options.node_label_expression = "GPU".to_owned();
        options.timeout = Duration::from_millis(1234);
        let words = options.to_am_args();
        assert!(
            words.iter().all(|word| word.starts_with("--")),
            "every word keeps its value attached: {words:?}"
        );
        assert_eq!(DshellOptions::parse_args(&words).unwrap(), options);
        let defaults = DshellOptions::new("date");
        assert_eq!(
            DshellOptions::parse_args(&defaults.to_am_args()).unwrap(),
            defaults
        );
    }

    #[test]
    fn the_container_runs_the_whole_command_with_its_arguments_and_output_in_the_log_dir() {
        let mut options = DshellOptions::new("X=one; echo \"$X\"; echo");
        options.shell_args = vec![
            "two".to_owned(),
            ">&2;".to_owned(),
            "exit 3 # done".to_owned(),
        ];
        let command = options.container_command();
        assert_eq!(
            command,
            "(\nX=one; echo \\\"\\$X\\\"; echo two >&2; exit 3 # done\n) \
             1><LOG_DIR>/stdout 2><LOG_DIR>/stderr"
        );
        let log_dir = tempfile::tempdir().unwrap();
        let expanded = command.replace("<LOG_DIR>", log_dir.path().to_str().unwrap());
        // The last line of the NodeManager's launch script.
        let status = std::process::Command::new("/bin/bash")
            .args(["-c", &format!("exec /bin/bash -c \"{expanded}\"")])
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(3), "the exit status is the command's");
        let stdout = std::fs::read_to_string(log_dir.path().join("stdout")).unwrap();
        let stderr = std::fs::read_to_string(log_dir.path().join("stderr")).unwrap();
        assert_eq!(
            (stdout.as_str(), stderr.as_str()),
            ("one\n", "two\n"),
            "every part's output is redirected"
        );
    }
}

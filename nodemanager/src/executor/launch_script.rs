//! [`LaunchScript`]: a container's `launch_container.sh` and starting environment, built as
//! Hadoop's NodeManager builds them (`ContainerLaunch.call` and `sanitizeEnv`,
//! `ContainerExecutor.writeLaunchEnv`), so that a Hadoop client's commands and environment mean
//! what they mean on Hadoop. Pure: everything comes in as arguments.
//!
//! The environment, in the order Hadoop builds it:
//!
//! 1. the launch context's variables;
//! 2. the NodeManager's variables, which replace any of the same name: `HADOOP_TOKEN_FILE_LOCATION`,
//!    `CONTAINER_ID`, `NM_PORT`, `NM_HOST`, `NM_HTTP_PORT`, `LOCAL_DIRS`, `LOCAL_USER_DIRS`,
//!    `LOG_DIRS`, `USER`, `LOGNAME`, `HOME`, `PWD`, `LOCALIZATION_COUNTERS`, `JVM_PID`;
//! 3. `yarn.nodemanager.admin-env` (`NAME=VALUE,...`): `$NAME` in a value is replaced by the
//!    variable as it stands so far, else the NodeManager's own, else nothing, and the result
//!    is appended with `:` to a value the variable already has;
//! 4. every value expanded (`<LOG_DIR>`, `<CPS>`, `<ADD_OPENS>`, `{{VAR}}`; see
//!    [`expand_environment`]).
//!
//! The script exports, in order: each `yarn.nodemanager.env-whitelist` variable the
//! environment lacks and the NodeManager has, as `NAME=${NAME:-"value"}`; the NodeManager's
//! variables in the order above; the rest, each after the variables its value refers to. Every
//! value is written between double quotes as it is, so the script's shell expands `$VAR`,
//! `${VAR}`, `$(...)` in it. The commands, expanded and joined with spaces, run as
//! `exec /bin/bash -c "<commands>"`: a Hadoop client escapes `"`, `$` and `\` in its
//! commands for those double quotes (Spark does), and so must any other.
//!
//! The script starts with the environment itself (Hadoop hands it to the process as well), and
//! with nothing of the NodeManager's own environment but the whitelisted variables.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use yarn_proto::token_metadata::TOKEN_FILE_ENV;

use super::launch_expansion::expand_environment;
use super::{ContainerPaths, LaunchSettings, LaunchSpec};

/// What the NodeManager reports as localization counters (bytes and files missed and cached,
/// milliseconds spent): this node localizes nothing.
const LOCALIZATION_COUNTERS: &str = "0,0,0,0,0";

/// One variable the launch script sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Export {
    /// `export NAME=${NAME:-"VALUE"}`: a whitelisted variable of the NodeManager's, which
    /// keeps a value the variable already has.
    Whitelisted { name: String, value: String },
    /// `export NAME="VALUE"`.
    Set { name: String, value: String },
}

/// A container's launch script and the environment it starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LaunchScript {
    /// The environment the script's process starts with: the launch context's variables, the
    /// NodeManager's and the admin environment, expanded; values are as written, before the
    /// script's shell expands them.
    pub(crate) environment: BTreeMap<String, String>,
    /// The variables the script exports, in order.
    pub(crate) exports: Vec<Export>,
    /// The command line the script runs: the launch context's commands, expanded, joined with
    /// spaces.
    pub(crate) command: String,
    /// Where the script sends its own output (and the command's, unless it redirects it).
    pub(crate) prelaunch_out: PathBuf,
    /// Where the script sends its own errors (and the command's, unless it redirects them).
    pub(crate) prelaunch_err: PathBuf,
}

impl LaunchScript {
    /// The launch script of `spec`, laid out in `paths`, on a node with `settings`.
    pub(crate) fn build(
        spec: &LaunchSpec,
        paths: &ContainerPaths,
        settings: &LaunchSettings,
    ) -> Self {
        let log_dir = paths.log_dir();
        let command = spec
            .commands
            .iter()
            .map(|command| expand_environment(command, log_dir, settings.add_opens))
            .collect::<Vec<_>>()
            .join(" ");

        let mut environment: BTreeMap<String, String> = spec
            .environment
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let nm_variables = [
            (TOKEN_FILE_ENV, display(&paths.token_file())),
            ("CONTAINER_ID", spec.container_id.to_string()),
            ("NM_PORT", spec.nm_port.to_string()),
            ("NM_HOST", spec.nm_host.clone()),
            ("NM_HTTP_PORT", spec.nm_http_port.to_string()),
            ("LOCAL_DIRS", join(&paths.app_local_dirs, "")),
            ("LOCAL_USER_DIRS", join(&paths.user_local_dirs, "/")),
            ("LOG_DIRS", join(&paths.container_log_dirs, "")),
            ("USER", spec.user.clone()),
            ("LOGNAME", spec.user.clone()),
            ("HOME", settings.user_home_dir.clone()),
            ("PWD", display(&paths.work_dir)),
            ("LOCALIZATION_COUNTERS", LOCALIZATION_COUNTERS.to_owned()),
            ("JVM_PID", "$$".to_owned()),
        ];
        let nm_names: Vec<&str> = nm_variables.iter().map(|(name, _)| *name).collect();
        for (name, value) in nm_variables {
            environment.insert(name.to_owned(), value);
        }
        add_admin_environment(
            &mut environment,
            &settings.admin_env,
            &settings.nm_environment,
        );
        for value in environment.values_mut() {
            *value = expand_environment(value, log_dir, settings.add_opens);
        }

        let mut exports: Vec<Export> = settings
            .env_whitelist
            .iter()
            .filter(|name| !environment.contains_key(*name))
            .filter_map(|name| {
                let value = settings.nm_environment.get(name)?;
                Some(Export::Whitelisted {
                    name: name.clone(),
                    value: value.clone(),
                })
            })
            .collect();
        exports.extend(nm_names.iter().map(|name| Export::Set {
            name: (*name).to_owned(),
            value: environment[*name].clone(),
        }));
        exports.extend(
            order_by_dependencies(&environment)
                .into_iter()
                .filter(|(name, _)| !nm_names.contains(&name.as_str()))
                .map(|(name, value)| Export::Set { name, value }),
        );
        Self {
            environment,
            exports,
            command,
            prelaunch_out: log_dir.join("prelaunch.out"),
            prelaunch_err: log_dir.join("prelaunch.err"),
        }
    }

    /// The script's text, line for line what Hadoop's `UnixShellScriptBuilder` writes for a
    /// container without local resources and without debug information.
    pub(crate) fn render(&self) -> String {
        let mut lines = vec![
            "#!/bin/bash".to_owned(),
            String::new(),
            "set -o pipefail -e".to_owned(),
            format!("export PRELAUNCH_OUT=\"{}\"", self.prelaunch_out.display()),
            "exec >\"${PRELAUNCH_OUT}\"".to_owned(),
            format!("export PRELAUNCH_ERR=\"{}\"", self.prelaunch_err.display()),
            "exec 2>\"${PRELAUNCH_ERR}\"".to_owned(),
            "echo \"Setting up env variables\"".to_owned(),
        ];
        lines.extend(self.exports.iter().map(|export| match export {
            Export::Whitelisted { name, value } => {
                format!("export {name}=${{{name}:-\"{value}\"}}")
            }
            Export::Set { name, value } => format!("export {name}=\"{value}\""),
        }));
        lines.push("echo \"Setting up job resources\"".to_owned());
        lines.push("echo \"Launching container\"".to_owned());
        lines.push(format!("exec /bin/bash -c \"{}\"", self.command));
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// `paths` comma-separated, as Hadoop lists directories, each followed by `suffix`.
fn join(paths: &[PathBuf], suffix: &str) -> String {
    paths
        .iter()
        .map(|path| format!("{}{suffix}", path.display()))
        .collect::<Vec<_>>()
        .join(",")
}

/// Adds `admin_env` (`NAME=VALUE` pairs, comma-separated) to `environment` as Hadoop's
/// `Apps.setEnvFromInputString` does: a pair counts only where it starts the text or follows a
/// comma and its name is a variable name; `$NAME` in a value is replaced by the variable's
/// value in `environment`, else in `nm_environment`, else by nothing; a variable that has a
/// value already gets `:` and the new value appended.
fn add_admin_environment(
    environment: &mut BTreeMap<String, String>,
    admin_env: &str,
    nm_environment: &HashMap<String, String>,
) {
    for pair in admin_env.split(',') {
        let Some((name, value)) = pair.split_once('=') else {
            continue;
        };
        if variable_name_length(name) != Some(name.len()) {
            continue;
        }
        let value = substitute(value, |variable| {
            environment
                .get(variable)
                .or_else(|| nm_environment.get(variable))
                .cloned()
                .unwrap_or_default()
        });
        environment
            .entry(name.to_owned())
            .and_modify(|held| {
                held.push(':');
                held.push_str(&value);
            })
            .or_insert(value);
    }
}

/// The length of the variable name (`[A-Za-z_][A-Za-z0-9_]*`) `text` starts with.
fn variable_name_length(text: &str) -> Option<usize> {
    let first = text.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    Some(
        text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len()),
    )
}

/// `text` with every `$NAME` replaced by `lookup(NAME)`.
fn substitute(text: &str, lookup: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        match variable_name_length(after) {
            Some(length) => {
                out.push_str(&lookup(&after[..length]));
                rest = &after[length..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The variables a value refers to, read as Hadoop's `UnixShellScriptBuilder` reads it: the
/// value stands between double quotes; `'...'` outside them and `\x` are skipped; `$NAME`,
/// `${NAME` and `${#NAME` are references. In order of appearance, each once.
fn dependencies(value: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = value.char_indices().collect();
    let mut names: Vec<&str> = Vec::new();
    let mut in_double_quotes = true;
    let mut i = 0;
    while i < chars.len() {
        match chars[i].1 {
            '"' => in_double_quotes = !in_double_quotes,
            '\'' if !in_double_quotes => {
                i += 1;
                while i < chars.len() {
                    let c = chars[i].1;
                    if c == '\\' {
                        i += 1;
                    }
                    if c == '\'' {
                        break;
                    }
                    i += 1;
                }
            }
            '\\' => i += 1,
            '$' => {
                i += 1;
                if chars.get(i).is_some_and(|(_, c)| *c == '{') {
                    i += 1;
                    if chars.get(i).is_some_and(|(_, c)| *c == '#') {
                        i += 1;
                    }
                }
                let start = i;
                while let Some((_, c)) = chars.get(i) {
                    let allowed = if i == start {
                        c.is_alphabetic() || *c == '_'
                    } else {
                        c.is_alphanumeric() || *c == '_'
                    };
                    if !allowed {
                        break;
                    }
                    i += 1;
                }
                if i > start {
                    let from = chars[start].0;
                    let to = chars.get(i).map_or(value.len(), |(at, _)| *at);
                    let name = &value[from..to];
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
                // The character that ended the name is looked at again below.
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// The variables of `environment`, each after the variables of `environment` its value refers
/// to (Hadoop's `orderEnvByDependencies`), otherwise in name order; a cycle is cut where it
/// closes.
fn order_by_dependencies(environment: &BTreeMap<String, String>) -> Vec<(String, String)> {
    fn visit<'a>(
        name: &'a str,
        environment: &'a BTreeMap<String, String>,
        resolved: &mut Vec<&'a str>,
        ordered: &mut Vec<(String, String)>,
    ) {
        resolved.push(name);
        let value = &environment[name];
        for dependency in dependencies(value) {
            if let Some((dependency, _)) = environment.get_key_value(dependency)
                && !resolved.contains(&dependency.as_str())
            {
                visit(dependency, environment, resolved, ordered);
            }
        }
        ordered.push((name.to_owned(), value.clone()));
    }
    let mut resolved = Vec::with_capacity(environment.len());
    let mut ordered = Vec::with_capacity(environment.len());
    for name in environment.keys() {
        if !resolved.contains(&name.as_str()) {
            visit(name, environment, &mut resolved, &mut ordered);
        }
    }
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::launch_expansion::JDK17_PLUS_OPTIONS;

    const APP: &str = "application_1410901177871_0001";
    const CID: &str = "container_1410901177871_0001_01_000005";

    fn spec(environment: &[(&str, &str)]) -> LaunchSpec {
        LaunchSpec {
            container_id: CID.parse().unwrap(),
            user: "alice".into(),
            commands: vec![
                "{{JAVA_HOME}}/bin/java <ADD_OPENS> -cp {{PWD}}<CPS>{{PWD}}/*".into(),
                "Main 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr".into(),
            ],
            environment: environment
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
            memory_mb: 128,
            nm_host: "node7".into(),
            nm_port: 8041,
            nm_http_port: 8042,
            tokens: Vec::new(),
            local_resources: std::collections::BTreeMap::new(),
        }
    }

    fn paths() -> ContainerPaths {
        ContainerPaths::new(
            &["/l1".into(), "/l2".into()],
            &["/g1".into(), "/g2".into()],
            "alice",
            CID.parse().unwrap(),
        )
        .unwrap()
    }

    fn settings() -> LaunchSettings {
        LaunchSettings {
            env_whitelist: ["JAVA_HOME", "PATH", "LANG", "HADOOP_CONF_DIR"]
                .map(str::to_owned)
                .to_vec(),
            admin_env: "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX".to_owned(),
            user_home_dir: "/home/".to_owned(),
            nm_environment: HashMap::from(
                [
                    ("JAVA_HOME", "/opt/jdk"),
                    ("PATH", "/usr/bin:/bin"),
                    ("HADOOP_CONF_DIR", "/etc/hadoop"),
                    ("SECRET", "nm-only"),
                ]
                .map(|(name, value)| (name.to_owned(), value.to_owned())),
            ),
            add_opens: JDK17_PLUS_OPTIONS,
        }
    }

    fn build(environment: &[(&str, &str)]) -> LaunchScript {
        LaunchScript::build(&spec(environment), &paths(), &settings())
    }

    fn work() -> String {
        format!("/l1/usercache/alice/appcache/{APP}/{CID}")
    }

    fn log_dir() -> String {
        format!("/g1/{APP}/{CID}")
    }

    fn exported(script: &LaunchScript, name: &str) -> Option<String> {
        script.exports.iter().find_map(|export| match export {
            Export::Set { name: n, value } if n == name => Some(value.clone()),
            _ => None,
        })
    }

    fn export_names(script: &LaunchScript) -> Vec<&str> {
        script
            .exports
            .iter()
            .map(|export| match export {
                Export::Whitelisted { name, .. } | Export::Set { name, .. } => name.as_str(),
            })
            .collect()
    }

    #[test]
    fn commands_are_expanded_and_joined_with_spaces() {
        let script = build(&[]);
        assert_eq!(
            script.command,
            format!(
                "$JAVA_HOME/bin/java {JDK17_PLUS_OPTIONS} -cp $PWD:$PWD/* \
                 Main 1>{0}/stdout 2>{0}/stderr",
                log_dir()
            )
        );
    }

    #[test]
    fn the_nodemanager_sets_hadoops_variables_in_hadoops_order() {
        let script = build(&[]);
        let names = export_names(&script);
        assert_eq!(
            names[..3],
            ["JAVA_HOME", "PATH", "HADOOP_CONF_DIR"],
            "whitelisted first, in whitelist order; LANG is not in the NodeManager's environment"
        );
        assert_eq!(
            names[3..17],
            [
                "HADOOP_TOKEN_FILE_LOCATION",
                "CONTAINER_ID",
                "NM_PORT",
                "NM_HOST",
                "NM_HTTP_PORT",
                "LOCAL_DIRS",
                "LOCAL_USER_DIRS",
                "LOG_DIRS",
                "USER",
                "LOGNAME",
                "HOME",
                "PWD",
                "LOCALIZATION_COUNTERS",
                "JVM_PID",
            ]
        );
        assert_eq!(names[17..], ["MALLOC_ARENA_MAX"]);
        let value = |name| exported(&script, name).unwrap();
        assert_eq!(
            value("HADOOP_TOKEN_FILE_LOCATION"),
            format!("{}/container_tokens", work())
        );
        assert_eq!(value("CONTAINER_ID"), CID);
        assert_eq!(value("NM_PORT"), "8041");
        assert_eq!(value("NM_HOST"), "node7");
        assert_eq!(value("NM_HTTP_PORT"), "8042");
        assert_eq!(
            value("LOCAL_DIRS"),
            format!("/l1/usercache/alice/appcache/{APP},/l2/usercache/alice/appcache/{APP}")
        );
        assert_eq!(
            value("LOCAL_USER_DIRS"),
            "/l1/usercache/alice/,/l2/usercache/alice/"
        );
        assert_eq!(
            value("LOG_DIRS"),
            format!("/g1/{APP}/{CID},/g2/{APP}/{CID}")
        );
        assert_eq!(value("USER"), "alice");
        assert_eq!(value("LOGNAME"), "alice");
        assert_eq!(value("HOME"), "/home/");
        assert_eq!(value("PWD"), work());
        assert_eq!(value("LOCALIZATION_COUNTERS"), "0,0,0,0,0");
        assert_eq!(value("JVM_PID"), "$$");
        // Not set anywhere: the admin environment's reference stands for nothing.
        assert_eq!(value("MALLOC_ARENA_MAX"), "");
    }

    #[test]
    fn the_nodemanagers_variables_override_the_launch_contexts() {
        let script = build(&[
            ("CONTAINER_ID", "forged"),
            ("USER", "mallory"),
            ("HOME", "/root"),
            ("HADOOP_TOKEN_FILE_LOCATION", "/elsewhere"),
        ]);
        assert_eq!(exported(&script, "CONTAINER_ID").unwrap(), CID);
        assert_eq!(exported(&script, "USER").unwrap(), "alice");
        assert_eq!(exported(&script, "HOME").unwrap(), "/home/");
        assert_eq!(
            script.environment[TOKEN_FILE_ENV],
            format!("{}/container_tokens", work())
        );
        // Each is exported once, among the NodeManager's variables.
        let names = export_names(&script);
        assert_eq!(names.iter().filter(|name| **name == "USER").count(), 1);
    }

    #[test]
    fn the_launch_contexts_variables_override_the_whitelist() {
        let script = build(&[("JAVA_HOME", "/my/jdk")]);
        assert!(!script.exports.contains(&Export::Whitelisted {
            name: "JAVA_HOME".to_owned(),
            value: "/opt/jdk".to_owned(),
        }));
        assert_eq!(exported(&script, "JAVA_HOME").unwrap(), "/my/jdk");
        assert!(script.exports.contains(&Export::Whitelisted {
            name: "PATH".to_owned(),
            value: "/usr/bin:/bin".to_owned(),
        }));
    }

    #[test]
    fn nothing_of_the_nodemanagers_environment_but_the_whitelist_reaches_the_container() {
        let script = build(&[]);
        assert!(!script.environment.contains_key("SECRET"));
        assert!(!script.environment.contains_key("JAVA_HOME"));
        assert!(!script.render().contains("nm-only"));
    }

    #[test]
    fn the_admin_environment_is_forced_in_by_appending() {
        let mut settings = settings();
        settings.admin_env = "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX,A=x$B-$SECRET$NONE,bad-name=1,\
                              =2,C=${PATH}"
            .to_owned();
        let script = LaunchScript::build(
            &spec(&[("MALLOC_ARENA_MAX", "4"), ("B", "b")]),
            &paths(),
            &settings,
        );
        // Hadoop appends to a value the launch context set, even with the same value.
        assert_eq!(script.environment["MALLOC_ARENA_MAX"], "4:4");
        // `$NAME` takes the container's value, else the NodeManager's, else nothing.
        assert_eq!(script.environment["A"], "xb-nm-only");
        // `${NAME}` is no `$NAME` to Hadoop: it is left for the shell.
        assert_eq!(script.environment["C"], "${PATH}");
        assert!(!script.environment.contains_key("bad-name"));
    }

    #[test]
    fn every_value_is_expanded_after_the_admin_environment() {
        let script = build(&[
            (
                "CLASSPATH",
                "{{PWD}}<CPS>{{PWD}}/__spark_conf__<CPS>$HADOOP_CONF_DIR",
            ),
            ("OPTS", "-Dlog=<LOG_DIR>/app.log <ADD_OPENS>"),
        ]);
        assert_eq!(
            script.environment["CLASSPATH"],
            "$PWD:$PWD/__spark_conf__:$HADOOP_CONF_DIR"
        );
        assert_eq!(
            script.environment["OPTS"],
            format!("-Dlog={}/app.log {JDK17_PLUS_OPTIONS}", log_dir())
        );
    }

    #[test]
    fn the_launch_contexts_variables_follow_those_they_refer_to() {
        let script = build(&[
            ("A", "$C/a"),
            ("B", "plain"),
            ("C", "${D}c"),
            ("D", "d"),
            ("E", "'$B' \\$B \"$A\""),
        ]);
        let names = export_names(&script);
        let rest: Vec<&str> = names[17..].to_vec();
        assert_eq!(rest, ["D", "C", "A", "B", "E", "MALLOC_ARENA_MAX"]);
    }

    #[test]
    fn dependencies_are_read_as_hadoop_reads_them() {
        assert_eq!(dependencies("$A:${B}:${#C}:$D_1x"), ["A", "B", "C", "D_1x"]);
        assert_eq!(dependencies("$A$A"), ["A"]);
        // Inside the double quotes a single quote is a plain character; `\$` is no reference.
        assert_eq!(dependencies("'$A' \\$B"), ["A"]);
        // After a closing `"` the value is outside double quotes, where `'...'` is skipped.
        assert_eq!(dependencies("\"'$A'\"$B"), ["B"]);
        assert_eq!(dependencies("$ $1 ${} $"), Vec::<&str>::new());
        assert_eq!(dependencies("é$Ünï-x"), ["Ünï"]);
    }

    #[test]
    fn a_cycle_is_cut_where_it_closes() {
        let environment: BTreeMap<String, String> = [("A", "$B"), ("B", "$A"), ("C", "$C")]
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .into();
        let names: Vec<String> = order_by_dependencies(&environment)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(names, ["B", "A", "C"]);
    }

    #[test]
    fn the_script_is_hadoops_line_for_line() {
        let mut settings = settings();
        settings.env_whitelist = vec!["JAVA_HOME".to_owned()];
        settings.admin_env = String::new();
        let mut spec = spec(&[("GREETING", "hi {{USER}}")]);
        spec.commands = vec!["echo \\\"$GREETING\\\"".to_owned()];
        let script = LaunchScript::build(&spec, &paths(), &settings);
        let (work, log) = (work(), log_dir());
        assert_eq!(
            script.render(),
            format!(
                "#!/bin/bash\n\
                 \n\
                 set -o pipefail -e\n\
                 export PRELAUNCH_OUT=\"{log}/prelaunch.out\"\n\
                 exec >\"${{PRELAUNCH_OUT}}\"\n\
                 export PRELAUNCH_ERR=\"{log}/prelaunch.err\"\n\
                 exec 2>\"${{PRELAUNCH_ERR}}\"\n\
                 echo \"Setting up env variables\"\n\
                 export JAVA_HOME=${{JAVA_HOME:-\"/opt/jdk\"}}\n\
                 export HADOOP_TOKEN_FILE_LOCATION=\"{work}/container_tokens\"\n\
                 export CONTAINER_ID=\"{CID}\"\n\
                 export NM_PORT=\"8041\"\n\
                 export NM_HOST=\"node7\"\n\
                 export NM_HTTP_PORT=\"8042\"\n\
                 export LOCAL_DIRS=\"/l1/usercache/alice/appcache/{APP},/l2/usercache/alice/appcache/{APP}\"\n\
                 export LOCAL_USER_DIRS=\"/l1/usercache/alice/,/l2/usercache/alice/\"\n\
                 export LOG_DIRS=\"/g1/{APP}/{CID},/g2/{APP}/{CID}\"\n\
                 export USER=\"alice\"\n\
                 export LOGNAME=\"alice\"\n\
                 export HOME=\"/home/\"\n\
                 export PWD=\"{work}\"\n\
                 export LOCALIZATION_COUNTERS=\"0,0,0,0,0\"\n\
                 export JVM_PID=\"$$\"\n\
                 export GREETING=\"hi $USER\"\n\
                 echo \"Setting up job resources\"\n\
                 echo \"Launching container\"\n\
                 exec /bin/bash -c \"echo \\\"$GREETING\\\"\"\n"
            )
        );
    }
}

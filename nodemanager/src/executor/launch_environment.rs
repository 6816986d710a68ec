//! The command line and environment a process container starts with: pure functions of the
//! [`LaunchSpec`] and the [`ContainerPaths`].
//!
//! YARN writes both into `launch_container.sh`, where the shell expands every `$VAR` in the
//! `export` lines. yarn-ha hands the environment to the process directly, which needs no
//! quoting, so `$VAR` in an environment value stays as written; Hadoop's portable `{{VAR}}`
//! form, which YARN's own clients use (`{{PWD}}<CPS>{{PWD}}/*`), is expanded here instead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use yarn_proto::token_metadata::TOKEN_FILE_ENV;

use super::{ContainerPaths, LaunchSpec};

/// Expands Hadoop's cross-platform parameters in the command line, as YARN does: `<LOG_DIR>`
/// becomes the container's log directory, `<CPS>` the class-path separator `:`, and `{{VAR}}`
/// the shell reference `$VAR`, which the container's shell then expands.
pub(crate) fn expand_command(command: &str, log_dir: &Path) -> String {
    expand_markers(command, log_dir)
        .replace("{{", "$")
        .replace("}}", "")
}

/// The variables the container gets on top of the NodeManager's own environment: the launch
/// context's, then the NodeManager's under YARN's names, which win on a clash. Among the
/// latter, `HADOOP_TOKEN_FILE_LOCATION` names the container's token file only when the launch
/// context carries tokens.
///
/// In launch-context values `<LOG_DIR>` and `<CPS>` are expanded as in the command line, and
/// `{{VAR}}` is replaced by the value `VAR` has for the container: a NodeManager variable, else
/// a launch-context variable (as written), else `inherited(VAR)` (the NodeManager's own
/// environment), else nothing, as a shell would.
pub(crate) fn container_environment(
    spec: &LaunchSpec,
    paths: &ContainerPaths,
    inherited: impl Fn(&str) -> Option<String>,
) -> HashMap<String, String> {
    let mut nm_variables: HashMap<&str, String> = HashMap::from([
        ("CONTAINER_ID", spec.container_id.to_string()),
        ("APPLICATION_ID", spec.application_id().to_string()),
        ("NM_HOST", spec.nm_host.clone()),
        ("NM_PORT", spec.nm_port.to_string()),
        ("LOCAL_DIRS", join_paths(&paths.app_local_dirs)),
        ("LOG_DIRS", join_paths(&paths.container_log_dirs)),
        ("PWD", paths.work_dir.display().to_string()),
        ("USER", spec.user.clone()),
        ("LOGNAME", spec.user.clone()),
    ]);
    if !spec.tokens.is_empty() {
        nm_variables.insert(TOKEN_FILE_ENV, paths.token_file().display().to_string());
    }
    let lookup = |name: &str| {
        nm_variables
            .get(name)
            .cloned()
            .or_else(|| spec.environment.get(name).cloned())
            .or_else(|| inherited(name))
    };
    let mut environment: HashMap<String, String> = spec
        .environment
        .iter()
        .map(|(name, value)| {
            let value = expand_markers(value, paths.log_dir());
            (name.clone(), expand_references(&value, &lookup))
        })
        .collect();
    for (name, value) in &nm_variables {
        environment.insert((*name).to_owned(), value.clone());
    }
    environment
}

fn expand_markers(text: &str, log_dir: &Path) -> String {
    text.replace("<LOG_DIR>", &log_dir.display().to_string())
        .replace("<CPS>", ":")
}

/// Replaces each `{{NAME}}` with `lookup(NAME)`; an unclosed `{{` stays as written.
fn expand_references(text: &str, lookup: &impl Fn(&str) -> Option<String>) -> String {
    let mut expanded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(length) = rest[start + 2..].find("}}") else {
            break;
        };
        expanded.push_str(&rest[..start]);
        let name = &rest[start + 2..start + 2 + length];
        expanded.push_str(&lookup(name).unwrap_or_default());
        rest = &rest[start + 2 + length + 2..];
    }
    expanded.push_str(rest);
    expanded
}

/// YARN's form for directory lists in the environment: comma-separated.
fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|path| path.display().to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: &str = "application_1410901177871_0001";
    const CID: &str = "container_1410901177871_0001_01_000005";

    fn spec() -> LaunchSpec {
        LaunchSpec {
            container_id: CID.parse().unwrap(),
            user: "alice".into(),
            commands: vec!["echo".into(), "hi".into()],
            environment: HashMap::from([
                ("JAVA_OPTS".to_owned(), "-Dlog=<LOG_DIR>/app.log".to_owned()),
                (
                    "CLASSPATH".to_owned(),
                    "{{PWD}}<CPS>{{PWD}}/*<CPS>{{EXTRA}}".to_owned(),
                ),
                ("EXTRA".to_owned(), "x.jar".to_owned()),
                (
                    "TOOLS".to_owned(),
                    "{{JAVA_HOME}}/bin:{{NOWHERE}}:{{open".to_owned(),
                ),
                ("USER".to_owned(), "mallory".to_owned()),
            ]),
            memory_mb: 128,
            nm_host: "node7".into(),
            nm_port: 8041,
            tokens: Vec::new(),
        }
    }

    fn paths() -> ContainerPaths {
        ContainerPaths::new(
            &["/l1".into(), "/l2".into()],
            &["/g1".into()],
            "alice",
            spec().container_id,
        )
        .unwrap()
    }

    fn environment() -> HashMap<String, String> {
        container_environment(&spec(), &paths(), |name| {
            (name == "JAVA_HOME").then(|| "/opt/jdk".to_owned())
        })
    }

    #[test]
    fn command_parameters_become_paths_and_shell_references() {
        assert_eq!(
            expand_command("run 1><LOG_DIR>/out {{HOME}}<CPS>x", Path::new("/g/c")),
            "run 1>/g/c/out $HOME:x"
        );
    }

    #[test]
    fn the_nodemanager_variables_are_set_under_yarns_names_and_win() {
        let environment = environment();
        assert_eq!(environment["CONTAINER_ID"], CID);
        assert_eq!(environment["APPLICATION_ID"], APP);
        assert_eq!(environment["NM_HOST"], "node7");
        assert_eq!(environment["NM_PORT"], "8041");
        assert_eq!(
            environment["LOCAL_DIRS"],
            format!("/l1/usercache/alice/appcache/{APP},/l2/usercache/alice/appcache/{APP}")
        );
        assert_eq!(environment["LOG_DIRS"], format!("/g1/{APP}/{CID}"));
        assert_eq!(
            environment["PWD"],
            format!("/l1/usercache/alice/appcache/{APP}/{CID}")
        );
        assert_eq!(environment["USER"], "alice");
        assert_eq!(environment["LOGNAME"], "alice");
    }

    #[test]
    fn the_token_file_is_named_only_with_tokens_and_overrides_the_launch_context() {
        assert!(!environment().contains_key(TOKEN_FILE_ENV));

        let mut spec = spec();
        spec.tokens = vec![0x0A, 0x00];
        spec.environment
            .insert(TOKEN_FILE_ENV.to_owned(), "/elsewhere".to_owned());
        let environment = container_environment(&spec, &paths(), |_| None);
        assert_eq!(
            environment[TOKEN_FILE_ENV],
            format!("/l1/usercache/alice/appcache/{APP}/{CID}/container_tokens")
        );
    }

    #[test]
    fn launch_context_values_have_markers_and_references_expanded() {
        let environment = environment();
        let pwd = format!("/l1/usercache/alice/appcache/{APP}/{CID}");
        assert_eq!(
            environment["JAVA_OPTS"],
            format!("-Dlog=/g1/{APP}/{CID}/app.log")
        );
        assert_eq!(environment["CLASSPATH"], format!("{pwd}:{pwd}/*:x.jar"));
        assert_eq!(environment["TOOLS"], "/opt/jdk/bin::{{open");
    }
}

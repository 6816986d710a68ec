//! Hadoop's parameter expansion in a container's commands and environment values, as
//! `ContainerLaunch.expandEnvironment` does it on Linux, and the JVM options `<ADD_OPENS>`
//! stands for.
//!
//! Clients write commands and environment values for any platform with markers that the
//! NodeManager replaces before it writes the launch script:
//!
//! ```text
//! <LOG_DIR>    the container's log directory (the first of LOG_DIRS)
//! <CPS>        the class-path separator, ':'
//! <ADD_OPENS>  JVM options a JDK 17 or later needs (Hadoop 3.5.0), or nothing
//! {{VAR}}      $VAR: '{{' becomes '$' and '}}' disappears, wherever they stand,
//!              and the launch script's shell expands the reference
//! ```
//!
//! The replacements run in that order, each over the whole text, so a `}}` without a `{{` is
//! dropped too, exactly as Hadoop drops it.

use std::path::Path;

/// The marker for the container's log directory (Hadoop's `LOG_DIR_EXPANSION_VAR`).
pub(crate) const LOG_DIR_MARKER: &str = "<LOG_DIR>";
/// The marker for the class-path separator (Hadoop's `CLASS_PATH_SEPARATOR`).
pub(crate) const CLASS_PATH_SEPARATOR_MARKER: &str = "<CPS>";
/// The marker for the JVM options of JDK 17 and later (Hadoop's `JVM_ADD_OPENS_VAR`).
pub(crate) const ADD_OPENS_MARKER: &str = "<ADD_OPENS>";

/// What Hadoop 3.5.0's NodeManager puts in place of `<ADD_OPENS>` when it runs on JDK 17 or
/// later (its `ADDITIONAL_JDK17_PLUS_OPTIONS`, MAPREDUCE-7449 and MAPREDUCE-7456).
pub(crate) const JDK17_PLUS_OPTIONS: &str = "--add-opens=java.base/java.lang=ALL-UNNAMED \
     --add-exports=java.base/sun.net.dns=ALL-UNNAMED \
     --add-exports=java.base/sun.net.util=ALL-UNNAMED";

/// `text` with Hadoop's markers replaced: `<LOG_DIR>` by `log_dir`, `<CPS>` by `:`,
/// `<ADD_OPENS>` by `add_opens`, then `{{` by `$` and `}}` by nothing.
pub(crate) fn expand_environment(text: &str, log_dir: &Path, add_opens: &str) -> String {
    text.replace(LOG_DIR_MARKER, &log_dir.display().to_string())
        .replace(CLASS_PATH_SEPARATOR_MARKER, ":")
        .replace(ADD_OPENS_MARKER, add_opens)
        .replace("{{", "$")
        .replace("}}", "")
}

/// What `<ADD_OPENS>` becomes for containers whose JVM has major version `java_major`:
/// [`JDK17_PLUS_OPTIONS`] from 17 on, nothing before, and nothing when the version is unknown
/// (a JVM before 9 refuses the options, a later one merely lacks them).
///
/// Hadoop's NodeManager asks its own JVM; yarn-ha's is no JVM, so the version is that of the
/// JDK its `JAVA_HOME` names, the one containers get through the whitelist.
pub(crate) fn add_opens_options(java_major: Option<u32>) -> &'static str {
    match java_major {
        Some(major) if major >= 17 => JDK17_PLUS_OPTIONS,
        _ => "",
    }
}

/// The major version of the JDK whose `release` file holds `release`: its `JAVA_VERSION`,
/// where `1.8.0_292` is 8 and `17.0.2`, `17` or `21-ea` is 17 or 21.
pub(crate) fn java_major_version(release: &str) -> Option<u32> {
    let version = release.lines().find_map(|line| {
        line.trim()
            .strip_prefix("JAVA_VERSION=")
            .map(|value| value.trim().trim_matches('"'))
    })?;
    let mut parts = version.split(['.', '_', '-', '+']);
    let leading_number = |part: Option<&str>| -> Option<u32> {
        let part = part?;
        let digits = part
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(part.len());
        part[..digits].parse().ok()
    };
    match leading_number(parts.next())? {
        // The 1.x scheme of Java 8 and earlier: the major version is the second number.
        1 => leading_number(parts.next()),
        major => Some(major),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG_DIR: &str = "/nm/logs/application_1_0001/container_1_0001_01_000001";

    fn expand(text: &str) -> String {
        expand_environment(text, Path::new(LOG_DIR), "--opens")
    }

    #[test]
    fn the_log_dir_marker_becomes_the_containers_log_directory() {
        assert_eq!(
            expand("1><LOG_DIR>/stdout 2><LOG_DIR>/stderr"),
            format!("1>{LOG_DIR}/stdout 2>{LOG_DIR}/stderr")
        );
    }

    #[test]
    fn the_class_path_separator_becomes_a_colon() {
        assert_eq!(expand("a.jar<CPS>b.jar<CPS>"), "a.jar:b.jar:");
    }

    #[test]
    fn add_opens_becomes_the_given_options_or_nothing() {
        assert_eq!(expand("java <ADD_OPENS> -cp x"), "java --opens -cp x");
        assert_eq!(
            expand_environment("java <ADD_OPENS> -cp x", Path::new("/l"), ""),
            "java  -cp x"
        );
    }

    /// As Hadoop's own test of `expandEnvironment` writes it for Linux.
    #[test]
    fn parameter_expansion_becomes_shell_references() {
        let input = "{{HADOOP_HOME}}/share/hadoop/common/*<CPS>\
                     {{HADOOP_HOME}}/share/hadoop/common/lib/*<CPS>\
                     {{HADOOP_LOG_HOME}}<LOG_DIR> <ADD_OPENS>";
        assert_eq!(
            expand(input),
            format!(
                "$HADOOP_HOME/share/hadoop/common/*:$HADOOP_HOME/share/hadoop/common/lib/*:\
                 $HADOOP_LOG_HOME{LOG_DIR} --opens"
            )
        );
    }

    #[test]
    fn unpaired_braces_are_replaced_wherever_they_stand() {
        assert_eq!(expand("{{open and close}} }} {{"), "$open and close  $");
        assert_eq!(expand("{PWD} {{{PWD}}}"), "{PWD} ${PWD}");
    }

    #[test]
    fn text_without_markers_is_unchanged() {
        let text = "echo \"$HOME\" 'single' `date` \\$x <LOG_DIRX";
        assert_eq!(expand(text), text);
    }

    #[test]
    fn jdk_17_and_later_get_hadoops_options() {
        assert_eq!(add_opens_options(Some(17)), JDK17_PLUS_OPTIONS);
        assert_eq!(add_opens_options(Some(21)), JDK17_PLUS_OPTIONS);
        assert_eq!(add_opens_options(Some(11)), "");
        assert_eq!(add_opens_options(Some(8)), "");
        assert_eq!(add_opens_options(None), "");
        assert!(JDK17_PLUS_OPTIONS.starts_with("--add-opens=java.base/java.lang=ALL-UNNAMED "));
        assert_eq!(JDK17_PLUS_OPTIONS.split(' ').count(), 3);
    }

    #[test]
    fn the_major_version_is_read_from_a_jdk_release_file() {
        let release = "IMPLEMENTOR=\"Debian\"\nJAVA_VERSION=\"17.0.12\"\nJAVA_VERSION_DATE=\"x\"\n";
        assert_eq!(java_major_version(release), Some(17));
        assert_eq!(java_major_version("JAVA_VERSION=\"1.8.0_292\""), Some(8));
        assert_eq!(java_major_version("JAVA_VERSION=\"21\""), Some(21));
        assert_eq!(java_major_version("JAVA_VERSION=\"22-ea\""), Some(22));
        assert_eq!(java_major_version("JAVA_VERSION=\"11.0.2+9\""), Some(11));
        assert_eq!(java_major_version("JAVA_RUNTIME_VERSION=\"17\""), None);
        assert_eq!(java_major_version("JAVA_VERSION=\"\""), None);
        assert_eq!(java_major_version(""), None);
    }
}

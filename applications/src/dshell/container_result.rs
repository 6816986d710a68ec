//! [`ContainerResult`]: how one task container ended, as the ApplicationMaster reports it to
//! the client through its final diagnostics, one line per container.

use std::fmt;

use yarn_proto::ids::ContainerId;
use yarn_proto::pb;

/// YARN's `ContainerExitStatus.INVALID`: no exit status is known, as for a container that never
/// started.
pub const EXIT_STATUS_INVALID: i32 = -1000;

/// How one container of a run ended.
///
/// It prints as one line, `<container id> on <node> <EXECUTION_TYPE> exit <status>`, followed
/// by `: <diagnostics>` when there are any (newlines folded into spaces), and
/// [`parse_line`](Self::parse_line) reads such a line back.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerResult {
    /// The container, in Hadoop's form (`container_1700000000000_0001_01_000002`).
    pub container_id: String,
    /// Its node, `host:port`.
    pub node: String,
    /// The execution type it was allocated as; never UNSPECIFIED.
    pub execution_type: pb::ExecutionTypeProto,
    /// The process's exit status, one of YARN's negative container exit statuses, or
    /// [`EXIT_STATUS_INVALID`] when it never started.
    pub exit_status: i32,
    /// Why it failed, as the NodeManager or the ApplicationMaster said; empty on success.
    pub diagnostics: String,
}

impl ContainerResult {
    /// Whether the container ran its command and the command exited 0.
    pub fn succeeded(&self) -> bool {
        self.exit_status == 0
    }

    /// Reads a line as [`Display`](fmt::Display) writes it; `None` for any other line (the
    /// diagnostics also carry summary lines and the ResourceManager's own text).
    pub fn parse_line(line: &str) -> Option<Self> {
        let (container_id, rest) = line.trim_end().split_once(" on ")?;
        container_id.parse::<ContainerId>().ok()?;
        let mut words = rest.splitn(4, ' ');
        let node = words.next()?;
        let execution_type = pb::ExecutionTypeProto::from_str_name(words.next()?)?;
        if words.next()? != "exit" {
            return None;
        }
        let tail = words.next()?;
        let (status, diagnostics) = match tail.split_once(": ") {
            Some((status, diagnostics)) => (status, diagnostics),
            None => (tail, ""),
        };
        Some(Self {
            container_id: container_id.to_owned(),
            node: node.to_owned(),
            execution_type,
            exit_status: status.parse().ok()?,
            diagnostics: diagnostics.to_owned(),
        })
    }
}

impl fmt::Display for ContainerResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} on {} {} exit {}",
            self.container_id,
            self.node,
            self.execution_type.as_str_name(),
            self.exit_status
        )?;
        if !self.diagnostics.is_empty() {
            // One result per line, whatever the NodeManager's message looks like.
            let folded: Vec<&str> = self.diagnostics.split_whitespace().collect();
            write!(f, ": {}", folded.join(" "))?;
        }
        Ok(())
    }
}

/// The final status of a run that wanted `wanted` containers: SUCCEEDED when every one of them
/// has a result and every result succeeded, FAILED otherwise (Hadoop's distributed shell does
/// not run failed containers again, only aborted ones).
pub fn final_status(results: &[ContainerResult], wanted: usize) -> pb::FinalApplicationStatusProto {
    if results.len() == wanted && results.iter().all(ContainerResult::succeeded) {
        pb::FinalApplicationStatusProto::AppSucceeded
    } else {
        pb::FinalApplicationStatusProto::AppFailed
    }
}

/// The final diagnostics of a run: one line per result, in the order given, then a summary line
/// `<succeeded> of <wanted> containers succeeded`.
pub fn format_diagnostics(results: &[ContainerResult], wanted: usize) -> String {
    let succeeded = results.iter().filter(|result| result.succeeded()).count();
    let mut text = String::new();
    for result in results {
        text.push_str(&result.to_string());
        text.push('\n');
    }
    text.push_str(&format!("{succeeded} of {wanted} containers succeeded"));
    text
}

/// The container results among the lines of an application's diagnostics, in order.
pub fn parse_diagnostics(diagnostics: &str) -> Vec<ContainerResult> {
    diagnostics
        .lines()
        .filter_map(ContainerResult::parse_line)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(sequence: u32, exit_status: i32, diagnostics: &str) -> ContainerResult {
        ContainerResult {
            container_id: format!("container_1700000000000_0001_01_{sequence:06}"),
            node: "host1:8041".to_owned(),
            execution_type: pb::ExecutionTypeProto::Guaranteed,
            exit_status,
            diagnostics: diagnostics.to_owned(),
        }
    }

    #[test]
    fn a_result_prints_as_one_line_and_reads_back() {
        let plain = result(2, 0, "");
        assert_eq!(
            plain.to_string(),
            "container_1700000000000_0001_01_000002 on host1:8041 GUARANTEED exit 0"
        );
        let mut failed = result(
            3,
            EXIT_STATUS_INVALID,
            "StartContainers refused: no: token\n",
        );
        failed.execution_type = pb::ExecutionTypeProto::Opportunistic;
        assert_eq!(
            failed.to_string(),
            "container_1700000000000_0001_01_000003 on host1:8041 OPPORTUNISTIC exit -1000: \
             StartContainers refused: no: token"
        );
        assert_eq!(ContainerResult::parse_line(&plain.to_string()), Some(plain));
        failed.diagnostics = "StartContainers refused: no: token".to_owned();
        assert_eq!(
            ContainerResult::parse_line(&failed.to_string()),
            Some(failed)
        );
    }

    #[test]
    fn all_zero_exits_succeed_and_one_failure_or_a_missing_result_fails() {
        let ok = [result(2, 0, ""), result(3, 0, "")];
        assert_eq!(
            final_status(&ok, 2),
            pb::FinalApplicationStatusProto::AppSucceeded
        );
        let one_failed = [result(2, 0, ""), result(3, 1, "Exited with 1")];
        assert_eq!(
            final_status(&one_failed, 2),
            pb::FinalApplicationStatusProto::AppFailed
        );
        assert_eq!(
            final_status(&ok[..1], 2),
            pb::FinalApplicationStatusProto::AppFailed,
            "a container without a result is no success"
        );
    }

    #[test]
    fn the_diagnostics_list_each_result_and_a_summary_and_only_results_parse_back() {
        let results = [result(2, 0, ""), result(3, 137, "Killed")];
        let text = format_diagnostics(&results, 3);
        assert_eq!(
            text,
            "container_1700000000000_0001_01_000002 on host1:8041 GUARANTEED exit 0\n\
             container_1700000000000_0001_01_000003 on host1:8041 GUARANTEED exit 137: Killed\n\
             1 of 3 containers succeeded"
        );
        let with_rm_text = format!("Attempt recovered after failover\n{text}\n");
        assert_eq!(parse_diagnostics(&with_rm_text), results);
        assert_eq!(
            ContainerResult::parse_line("not_a_container on h:1 GUARANTEED exit 0"),
            None
        );
    }
}

//! No daemon panicked.
//!
//! Evidence: every daemon's log file and every container's stderr and AppMaster.stderr, read
//! after the cluster stopped, searched for Rust's panic message (`panicked at`).

use super::{CheckInput, Verdict, listing};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let panics = &input.observations.panics;
    if panics.is_empty() {
        return Verdict::Held("no log reports a panic".to_owned());
    }
    let lines: Vec<String> = panics
        .iter()
        .map(|panic| format!("{}:{}: {}", panic.file.display(), panic.line, panic.text))
        .collect();
    Verdict::Violated(listing(&lines))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::fixtures::Scenario;
    use super::*;
    use crate::observations::LogPanic;

    #[test]
    fn quiet_logs_hold_and_a_panic_is_a_violation_naming_its_line() {
        let mut scenario = Scenario::new();
        assert!(check(&scenario.input()).passed());
        scenario.observations.panics.push(LogPanic {
            file: PathBuf::from("/c/logs/rm2.log"),
            line: 812,
            text: "thread 'tokio-runtime-worker' panicked at rm-ha/src/x.rs:1:2:".into(),
        });
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)));
        assert!(verdict.evidence().contains("rm2.log:812"), "{verdict:?}");
    }
}

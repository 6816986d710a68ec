//! What `yarn-ha applicationattempt` prints, as pure functions of the RM's attempt reports.

use yarn_proto::pb;

use super::table::push_row;
use super::text::{attempt_id_text, attempt_state_name, container_id_text};

/// The columns of `applicationattempt -list`, in order.
pub const ATTEMPT_LIST_COLUMNS: [&str; 4] = [
    "ApplicationAttempt-Id",
    "State",
    "AM-Container-Id",
    "Tracking-URL",
];

/// Hadoop's minimum column widths.
const ATTEMPT_LIST_WIDTHS: [usize; 4] = [30, 20, 35, 35];

/// The `applicationattempt -list` output: `Total number of application attempts :<n>`, the
/// column headers, then one tab-separated row per report, in the order given. An attempt whose
/// AM container is not allocated yet shows `N/A` for it.
pub fn format_attempt_list(reports: &[pb::ApplicationAttemptReportProto]) -> String {
    let mut out = format!("Total number of application attempts :{}\n", reports.len());
    push_row(&mut out, &ATTEMPT_LIST_WIDTHS, &ATTEMPT_LIST_COLUMNS);
    for report in reports {
        let id = attempt_id_text(report.application_attempt_id.as_ref());
        let am_container = container_id_text(report.am_container_id.as_ref());
        push_row(
            &mut out,
            &ATTEMPT_LIST_WIDTHS,
            &[
                &id,
                attempt_state_name(report.yarn_application_attempt_state()),
                &am_container,
                &report.tracking_url,
            ],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId};

    use super::*;

    fn cells(line: &str) -> Vec<&str> {
        line.split('\t').map(str::trim).collect()
    }

    #[test]
    fn list_counts_attempts_and_shows_every_column() {
        let app = ApplicationId::new(1_700_000_000_000, 4);
        let first = ApplicationAttemptId::new(app, 1);
        let second = ApplicationAttemptId::new(app, 2);
        let am = ContainerId::new(second, 1, 1).unwrap();
        let reports = [
            pb::ApplicationAttemptReportProto {
                application_attempt_id: Some(first.into()),
                yarn_application_attempt_state:
                    pb::YarnApplicationAttemptStateProto::AppAttemptFailed.into(),
                am_container_id: Some(ContainerId::new(first, 0, 1).unwrap().into()),
                tracking_url: "http://rm1:8088/proxy/application_1700000000000_0004/".to_owned(),
                ..Default::default()
            },
            pb::ApplicationAttemptReportProto {
                application_attempt_id: Some(second.into()),
                yarn_application_attempt_state:
                    pb::YarnApplicationAttemptStateProto::AppAttemptAllocatedSaving.into(),
                am_container_id: Some(am.into()),
                ..Default::default()
            },
            pb::ApplicationAttemptReportProto {
                application_attempt_id: Some(ApplicationAttemptId::new(app, 3).into()),
                yarn_application_attempt_state:
                    pb::YarnApplicationAttemptStateProto::AppAttemptScheduled.into(),
                ..Default::default()
            },
        ];
        let text = format_attempt_list(&reports);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Total number of application attempts :3");
        assert_eq!(cells(lines[1]), ATTEMPT_LIST_COLUMNS);
        assert_eq!(
            cells(lines[2]),
            [
                "appattempt_1700000000000_0004_000001",
                "FAILED",
                "container_1700000000000_0004_01_000001",
                "http://rm1:8088/proxy/application_1700000000000_0004/",
            ]
        );
        assert_eq!(
            cells(lines[3])[..3],
            [
                "appattempt_1700000000000_0004_000002",
                "ALLOCATED_SAVING",
                "container_e01_1700000000000_0004_02_000001",
            ]
        );
        assert_eq!(cells(lines[4])[1..3], ["SCHEDULED", "N/A"]);
    }

    #[test]
    fn list_escapes_the_tracking_url_an_am_registered() {
        let app = ApplicationId::new(1_700_000_000_000, 4);
        let report = pb::ApplicationAttemptReportProto {
            application_attempt_id: Some(ApplicationAttemptId::new(app, 1).into()),
            tracking_url: "http://am:1/\x1b]8;;http://evil/\x1b\\link".to_owned(),
            ..Default::default()
        };
        let text = format_attempt_list(&[report]);
        assert!(!text.contains('\x1b'), "{text:?}");
        assert_eq!(
            cells(text.lines().nth(2).unwrap())[3],
            "http://am:1/\\e]8;;http://evil/\\e\\\\link"
        );
    }
}

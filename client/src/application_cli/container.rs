//! What `yarn-ha container` prints, as pure functions of the RM's container reports.

use yarn_proto::pb;

use super::table::push_row;
use super::text::{container_id_text, container_state_name, format_time, node_id_text};

/// The columns of `container -list`, in order.
pub const CONTAINER_LIST_COLUMNS: [&str; 7] = [
    "Container-Id",
    "Start Time",
    "Finish Time",
    "State",
    "Host",
    "Node Http Address",
    "LOG-URL",
];

/// Hadoop's minimum column widths.
const CONTAINER_LIST_WIDTHS: [usize; 7] = [30, 20, 20, 20, 20, 20, 35];

/// The `container -list` output: `Total number of containers :<n>`, the column headers, then one
/// tab-separated row per report, in the order given. Times are UTC dates; a container still
/// running has the finish time `N/A`. The host column is the NodeManager's `host:port`.
pub fn format_container_list(reports: &[pb::ContainerReportProto]) -> String {
    let mut out = format!("Total number of containers :{}\n", reports.len());
    push_row(&mut out, &CONTAINER_LIST_WIDTHS, &CONTAINER_LIST_COLUMNS);
    for report in reports {
        let id = container_id_text(report.container_id.as_ref());
        let started = format_time(report.creation_time);
        let finished = format_time(report.finish_time);
        let host = node_id_text(report.node_id.as_ref());
        push_row(
            &mut out,
            &CONTAINER_LIST_WIDTHS,
            &[
                &id,
                &started,
                &finished,
                container_state_name(report.container_state()),
                &host,
                &report.node_http_address,
                &report.log_url,
            ],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};

    use super::*;

    fn cells(line: &str) -> Vec<&str> {
        line.split('\t').map(str::trim).collect()
    }

    #[test]
    fn list_counts_containers_and_shows_every_column_with_dates() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 4), 1);
        let container =
            |sequence, state: pb::ContainerStateProto, finish_time| pb::ContainerReportProto {
                container_id: Some(ContainerId::new(attempt, 0, sequence).unwrap().into()),
                node_id: Some(NodeId::new("nm1.example.com", 8041).into()),
                creation_time: 1_700_000_000_000,
                finish_time,
                log_url: format!("http://nm1.example.com:8042/node/containerlogs/{sequence}"),
                container_state: state.into(),
                node_http_address: "http://nm1.example.com:8042".to_owned(),
                ..Default::default()
            };
        let text = format_container_list(&[
            container(1, pb::ContainerStateProto::CRunning, 0),
            container(2, pb::ContainerStateProto::CComplete, 1_700_000_060_000),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Total number of containers :2");
        assert_eq!(cells(lines[1]), CONTAINER_LIST_COLUMNS);
        assert_eq!(
            cells(lines[2]),
            [
                "container_1700000000000_0004_01_000001",
                "Tue Nov 14 22:13:20 +0000 2023",
                "N/A",
                "RUNNING",
                "nm1.example.com:8041",
                "http://nm1.example.com:8042",
                "http://nm1.example.com:8042/node/containerlogs/1",
            ]
        );
        assert_eq!(
            cells(lines[3])[2..4],
            ["Tue Nov 14 22:14:20 +0000 2023", "COMPLETE"]
        );
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn list_escapes_the_addresses_nodes_report() {
        let attempt = ApplicationAttemptId::new(ApplicationId::new(1_700_000_000_000, 4), 1);
        let report = pb::ContainerReportProto {
            container_id: Some(ContainerId::new(attempt, 0, 1).unwrap().into()),
            node_http_address: "http://nm1:8042\t\x1b[5m".to_owned(),
            log_url: "http://nm1:8042/logs\u{85}".to_owned(),
            ..Default::default()
        };
        let text = format_container_list(&[report]);
        assert!(!text.contains(['\x1b', '\u{85}']), "{text:?}");
        let row = cells(text.lines().nth(2).unwrap());
        assert_eq!(row.len(), CONTAINER_LIST_COLUMNS.len(), "{row:?}");
        assert_eq!(
            row[5..],
            ["http://nm1:8042\\t\\e[5m", "http://nm1:8042/logs\\u{85}"]
        );
    }
}

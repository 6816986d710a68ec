//! What `yarn-ha node` prints, as pure functions of the RM's node reports.

use std::fmt::Write;

use yarn_proto::ids::NodeId;
use yarn_proto::pb;

use super::table::push_row;
use super::text::{format_time, node_id_text, node_state_name};
use crate::terminal_text::escape_for_terminal;

/// The columns of `node -list`, in order: Hadoop's four, then the node's opportunistic load as
/// of its last heartbeat (yarn-ha's additions).
pub const NODE_LIST_COLUMNS: [&str; 8] = [
    "Node-Id",
    "Node-State",
    "Node-Http-Address",
    "Number-of-Running-Containers",
    "Running-Opportunistic-Containers",
    "Opportunistic-Memory-Used-MB",
    "Opportunistic-VCores-Used",
    "Queued-Containers",
];

/// Hadoop's minimum widths for its four columns; the added ones are as wide as their headers,
/// so their numbers line up under them.
const NODE_LIST_WIDTHS: [usize; 8] = [16, 15, 17, 28, 32, 28, 25, 17];

/// The `node -list` output: `Total Nodes:<n>`, the column headers, then one tab-separated row
/// per report, in the order given; with `show_details` (`-showDetails`), each row is followed
/// by Hadoop's `Detailed Node Information :` block with the node's resources and labels.
pub fn format_node_list(reports: &[pb::NodeReportProto], show_details: bool) -> String {
    let mut out = format!("Total Nodes:{}\n", reports.len());
    push_row(&mut out, &NODE_LIST_WIDTHS, &NODE_LIST_COLUMNS);
    for report in reports {
        let id = node_id_text(report.node_id.as_ref());
        let containers = report.num_containers.to_string();
        let opportunistic = report.num_running_opportunistic_containers.to_string();
        let memory = report.opportunistic_memory_used.to_string();
        let vcores = report.opportunistic_vcores_used.to_string();
        let queued = report.num_queued_opportunistic_containers.to_string();
        push_row(
            &mut out,
            &NODE_LIST_WIDTHS,
            &[
                &id,
                node_state_name(report.node_state()),
                &report.http_address,
                &containers,
                &opportunistic,
                &memory,
                &vcores,
                &queued,
            ],
        );
        if show_details {
            push_details(&mut out, report);
        }
    }
    out
}

/// Hadoop's `Detailed Node Information :` block of one node.
fn push_details(out: &mut String, report: &pb::NodeReportProto) {
    let resource = |r: Option<&pb::ResourceProto>| {
        let (memory, vcores) = r.map_or((0, 0), |r| (r.memory, r.virtual_cores));
        format!("<memory:{memory}, vCores:{vcores}>")
    };
    let mut labels = report.node_labels.clone();
    labels.sort();
    out.push_str("Detailed Node Information :\n");
    for (label, value) in [
        ("Configured Resources", resource(report.capability.as_ref())),
        ("Allocated Resources", resource(report.used.as_ref())),
        ("Node-Labels", labels.join(",")),
    ] {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "\t{label} : {}", escape_for_terminal(&value));
    }
}

/// The `cluster -lnl` output, as Hadoop prints it: `Node Labels: ` then each label as
/// `<name:exclusivity=true>`, comma-separated, in the order given.
pub fn format_node_labels(labels: &[pb::NodeLabelProto]) -> String {
    let labels: Vec<String> = labels
        .iter()
        .map(|label| {
            format!(
                "<{}:exclusivity={}>",
                escape_for_terminal(&label.name),
                label.is_exclusive.unwrap_or(true)
            )
        })
        .collect();
    format!("Node Labels: {}\n", labels.join(","))
}

/// The report of node `id` among `reports`, if there is one.
pub fn find_node_report<'a>(
    reports: &'a [pb::NodeReportProto],
    id: &NodeId,
) -> Option<&'a pb::NodeReportProto> {
    reports.iter().find(|report| {
        report
            .node_id
            .as_ref()
            .is_some_and(|node| node.host == id.host && node.port == i32::from(id.port))
    })
}

/// The `node -status` output: a `Node Report :` block as Hadoop prints it, one
/// `\t<label> : <value>` line each, values escaped for the terminal, followed by the node's
/// opportunistic load. The last health update is a UTC date.
pub fn format_node_report(report: &pb::NodeReportProto) -> String {
    let used = report
        .used
        .as_ref()
        .map_or((0, 0), |r| (r.memory, r.virtual_cores));
    let capability = report
        .capability
        .as_ref()
        .map_or((0, 0), |r| (r.memory, r.virtual_cores));
    let lines = [
        ("Node-Id", node_id_text(report.node_id.as_ref())),
        ("Rack", report.rack_name.clone()),
        (
            "Node-State",
            node_state_name(report.node_state()).to_owned(),
        ),
        ("Node-Http-Address", report.http_address.clone()),
        (
            "Last-Health-Update",
            format_time(report.last_health_report_time),
        ),
        ("Health-Report", report.health_report.clone()),
        ("Containers", report.num_containers.to_string()),
        ("Memory-Used", format!("{}MB", used.0)),
        ("Memory-Capacity", format!("{}MB", capability.0)),
        ("CPU-Used", format!("{} vcores", used.1)),
        ("CPU-Capacity", format!("{} vcores", capability.1)),
        ("Node-Labels", report.node_labels.join(",")),
        (
            "Running-Opportunistic-Containers",
            report.num_running_opportunistic_containers.to_string(),
        ),
        (
            "Queued-Containers",
            report.num_queued_opportunistic_containers.to_string(),
        ),
        (
            "Opportunistic-Memory-Used",
            format!("{}MB", report.opportunistic_memory_used),
        ),
        (
            "Opportunistic-CPU-Used",
            format!("{} vcores", report.opportunistic_vcores_used),
        ),
    ];
    let mut out = String::from("Node Report : \n");
    for (label, value) in lines {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "\t{label} : {}", escape_for_terminal(&value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(host: &str, state: pb::NodeStateProto) -> pb::NodeReportProto {
        pb::NodeReportProto {
            node_id: Some(NodeId::new(host, 8041).into()),
            http_address: format!("{host}:8042"),
            rack_name: "/default-rack".to_owned(),
            used: Some(pb::ResourceProto {
                memory: 3072,
                virtual_cores: 3,
                ..Default::default()
            }),
            capability: Some(pb::ResourceProto {
                memory: 8192,
                virtual_cores: 8,
                ..Default::default()
            }),
            num_containers: 3,
            node_state: state.into(),
            health_report: "healthy".to_owned(),
            last_health_report_time: 1_700_000_000_000,
            node_labels: vec!["gpu".to_owned(), "ssd".to_owned()],
            num_running_opportunistic_containers: 2,
            num_queued_opportunistic_containers: 5,
            opportunistic_memory_used: 2048,
            opportunistic_vcores_used: 2,
        }
    }

    fn cells(line: &str) -> Vec<&str> {
        line.split('\t').map(str::trim).collect()
    }

    #[test]
    fn list_counts_nodes_and_shows_every_column_with_the_opportunistic_load() {
        let text = format_node_list(
            &[
                node("nm1.example.com", pb::NodeStateProto::NsRunning),
                node("nm2.example.com", pb::NodeStateProto::NsUnhealthy),
            ],
            false,
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Total Nodes:2");
        assert_eq!(cells(lines[1]), NODE_LIST_COLUMNS);
        assert_eq!(
            cells(lines[2]),
            [
                "nm1.example.com:8041",
                "RUNNING",
                "nm1.example.com:8042",
                "3",
                "2",
                "2048",
                "2",
                "5"
            ]
        );
        assert_eq!(cells(lines[3])[1], "UNHEALTHY");
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn list_and_status_escape_what_nodes_report() {
        let mut hostile = node("nm1.example.com", pb::NodeStateProto::NsUnhealthy);
        hostile.http_address = "nm1:8042\x1b[8m".to_owned();
        hostile.health_report = "disk full\r\x1b[2KHealth-Report : ok".to_owned();
        hostile.rack_name = "/r\u{202e}1".to_owned();
        hostile.node_labels = vec!["gpu\n".to_owned(), "ssd".to_owned()];

        let list = format_node_list(std::slice::from_ref(&hostile), true);
        assert!(list.contains("\tNode-Labels : gpu\\n,ssd\n"), "{list}");
        assert!(!list.contains('\x1b'), "{list:?}");
        assert_eq!(cells(list.lines().nth(2).unwrap())[2], "nm1:8042\\e[8m");

        let status = format_node_report(&hostile);
        assert!(!status.contains(['\x1b', '\r', '\u{202e}']), "{status:?}");
        for line in [
            "\tRack : /r\\u{202e}1\n",
            "\tHealth-Report : disk full\\r\\e[2KHealth-Report : ok\n",
            "\tNode-Labels : gpu\\n,ssd\n",
        ] {
            assert!(status.contains(line), "missing {line:?} in\n{status}");
        }
    }

    #[test]
    fn show_details_adds_hadoops_block_with_resources_and_sorted_labels() {
        let mut labelled = node("nm1.example.com", pb::NodeStateProto::NsRunning);
        labelled.node_labels = vec!["ssd".to_owned(), "gpu".to_owned()];
        let text = format_node_list(std::slice::from_ref(&labelled), true);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[3..],
            [
                "Detailed Node Information :",
                "\tConfigured Resources : <memory:8192, vCores:8>",
                "\tAllocated Resources : <memory:3072, vCores:3>",
                "\tNode-Labels : gpu,ssd",
            ]
        );
    }

    #[test]
    fn node_labels_print_as_hadoops_cluster_command_does() {
        let labels = [
            pb::NodeLabelProto {
                name: "gpu".to_owned(),
                is_exclusive: Some(true),
            },
            pb::NodeLabelProto {
                name: "spare".to_owned(),
                is_exclusive: Some(false),
            },
        ];
        assert_eq!(
            format_node_labels(&labels),
            "Node Labels: <gpu:exclusivity=true>,<spare:exclusivity=false>\n"
        );
        assert_eq!(format_node_labels(&[]), "Node Labels: \n");
    }

    #[test]
    fn an_empty_list_keeps_its_headers() {
        let text = format_node_list(&[], true);
        assert_eq!(text.lines().next(), Some("Total Nodes:0"));
        assert_eq!(text.lines().count(), 2);
    }

    #[test]
    fn status_finds_the_node_by_host_and_port_and_prints_its_report() {
        let reports = [
            node("nm1.example.com", pb::NodeStateProto::NsRunning),
            node("nm2.example.com", pb::NodeStateProto::NsDecommissioning),
        ];
        let wanted = NodeId::new("nm2.example.com", 8041);
        let found = find_node_report(&reports, &wanted).unwrap();
        assert_eq!(found.node_state(), pb::NodeStateProto::NsDecommissioning);
        assert!(find_node_report(&reports, &NodeId::new("nm2.example.com", 8042)).is_none());

        let text = format_node_report(found);
        assert!(text.starts_with("Node Report : \n"), "{text}");
        for line in [
            "\tNode-Id : nm2.example.com:8041\n",
            "\tRack : /default-rack\n",
            "\tNode-State : DECOMMISSIONING\n",
            "\tLast-Health-Update : Tue Nov 14 22:13:20 +0000 2023\n",
            "\tMemory-Used : 3072MB\n",
            "\tMemory-Capacity : 8192MB\n",
            "\tCPU-Used : 3 vcores\n",
            "\tNode-Labels : gpu,ssd\n",
            "\tQueued-Containers : 5\n",
            "\tOpportunistic-Memory-Used : 2048MB\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
    }
}

//! `yarn-ha queue -status <queue>`: a queue's configuration and usage from the leader.

use yarn_conf::Configuration;
use yarn_proto::pb;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;

use crate::terminal_text::escape_for_terminal;
use crate::{Error, Idempotency, RmClient, RmClientConfig, RmService};

/// Asks the leader for `queue` (a leaf name or full path) and renders it as
/// [`format_queue_status`] does. Blocks on its own single-threaded runtime.
///
/// # Errors
///
/// Those of [`RmClient::call`]; an unknown queue comes back as the leader's NOT_FOUND naming it.
pub fn queue_status_blocking(conf: &Configuration, queue: &str) -> Result<String, Error> {
    let config = RmClientConfig::from_conf(conf)?;
    let client = RmClient::new(&config, RmService::Client);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Runtime { source })?;
    let request = pb::GetQueueInfoRequestProto {
        queue_name: queue.to_owned(),
        ..Default::default()
    };
    let reply = runtime.block_on(client.call(Idempotency::Idempotent, |channel| {
        let request = request.clone();
        async move {
            ApplicationClientProtocolClient::new(channel)
                .get_queue_info(request)
                .await
        }
    }))?;
    let info = reply.queue_info.unwrap_or_default();
    Ok(format_queue_status(&info))
}

/// Renders a queue as `yarn queue -status` does, one `Label : value` line each, plus the
/// absolute capacities, applications and ACLs yarn-ha reports. Capacities print as
/// percentages with one decimal; names, paths and ACLs are escaped for the terminal.
pub fn format_queue_status(info: &pb::QueueInfoProto) -> String {
    let percent = |fraction: f32| format!("{:.1}%", fraction * 100.0);
    let absolute = |value: f32| format!("{value:.1}%");
    let state = match info.state() {
        pb::QueueStateProto::QRunning => "RUNNING",
        pb::QueueStateProto::QStopped => "STOPPED",
        pb::QueueStateProto::QDraining => "DRAINING",
        pb::QueueStateProto::QueueStateUnspecified => "UNKNOWN",
    };
    let statistics = info.queue_statistics.unwrap_or_default();
    let lines = [
        ("Queue Name", info.queue_name.clone()),
        ("Queue Path", info.queue_path.clone()),
        ("State", state.to_owned()),
        ("Capacity", percent(info.capacity)),
        ("Current Capacity", percent(info.current_capacity)),
        ("Maximum Capacity", percent(info.maximum_capacity)),
        ("Absolute Capacity", absolute(info.absolute_capacity)),
        (
            "Absolute Used Capacity",
            absolute(info.absolute_used_capacity),
        ),
        (
            "Absolute Maximum Capacity",
            absolute(info.absolute_maximum_capacity),
        ),
        ("Configured Capacity", info.configured_capacity.clone()),
        (
            "Configured Maximum Capacity",
            info.configured_maximum_capacity.clone(),
        ),
        (
            "Effective Capacity",
            resource(info.effective_min_resource.as_ref()),
        ),
        (
            "Effective Maximum Capacity",
            resource(info.effective_max_resource.as_ref()),
        ),
        (
            "Weight",
            info.weight
                .map_or_else(|| "-1".to_owned(), |weight| weight.to_string()),
        ),
        (
            "Maximum Parallel Apps",
            info.max_parallel_apps
                .map_or_else(|| "unlimited".to_owned(), |limit| limit.to_string()),
        ),
        (
            "Default Application Priority",
            info.default_application_priority.to_string(),
        ),
        (
            "Default Node Label expression",
            Some(info.default_node_label_expression.trim())
                .filter(|label| !label.is_empty())
                .unwrap_or("<DEFAULT_PARTITION>")
                .to_owned(),
        ),
        ("Accessible Node Labels", {
            let mut labels = info.accessible_node_labels.clone();
            labels.sort();
            labels.join(",")
        }),
        ("Preemption", switch(!info.preemption_disabled).to_owned()),
        (
            "Intra-queue Preemption",
            switch(!info.intra_queue_preemption_disabled).to_owned(),
        ),
        ("Applications", statistics.num_apps_submitted.to_string()),
        (
            "Running Applications",
            statistics.num_apps_running.to_string(),
        ),
        (
            "Pending Applications",
            statistics.num_apps_pending.to_string(),
        ),
        (
            "Used Resources",
            format!(
                "<memory:{}, vCores:{}>",
                statistics.allocated_memory_mb, statistics.allocated_vcores
            ),
        ),
        (
            "Resources To Preempt",
            format!(
                "<memory:{}, vCores:{}> in {} containers",
                statistics.to_preempt_memory_mb,
                statistics.to_preempt_vcores,
                statistics.to_preempt_containers
            ),
        ),
        (
            "Preempted Resources",
            format!(
                "<memory:{}, vCores:{}> in {} containers",
                statistics.preempted_memory_mb,
                statistics.preempted_vcores,
                statistics.preempted_containers
            ),
        ),
        (
            "Submit Applications ACL",
            format_acl(&info.acl_submit_applications),
        ),
        (
            "Administer Queue ACL",
            format_acl(&info.acl_administer_queue),
        ),
        (
            "Child Queues",
            info.child_queues
                .iter()
                .map(|child| child.queue_name.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ),
    ];
    let mut out = String::from("Queue Information : \n");
    for (label, value) in lines {
        out.push_str(&format!("\t{label} : {}\n", escape_for_terminal(&value)));
    }
    out
}

/// `<memory:M, vCores:V>` of a resource the RM sent; all zero when it sent none.
fn resource(resource: Option<&pb::ResourceProto>) -> String {
    let resource = resource.cloned().unwrap_or_default();
    format!(
        "<memory:{}, vCores:{}>",
        resource.memory, resource.virtual_cores
    )
}

/// How Hadoop's queue CLI prints a preemption switch.
fn switch(enabled: bool) -> &'static str {
    if enabled { "enabled" } else { "disabled" }
}

/// Renders one queue ACL of a `QueueInfoProto`. The RM sends an empty string when the queue
/// has no list of its own, so its ancestors' lists decide (`(inherited)`); otherwise Hadoop's
/// form, users before the first space and groups after it: `*`, `(nobody)` when it names no
/// one, the users alone (`alice,bob`), or with their groups (`alice; groups: ops`,
/// `groups: ops`), so that a list of groups never reads as a list of users.
fn format_acl(value: &str) -> String {
    if value.is_empty() {
        return "(inherited)".to_owned();
    }
    if value.trim() == "*" {
        return "*".to_owned();
    }
    let (users, groups) = value.split_once(' ').unwrap_or((value, ""));
    let names = |list: &str| {
        list.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect::<Vec<_>>()
            .join(",")
    };
    match (names(users), names(groups)) {
        (users, groups) if users.is_empty() && groups.is_empty() => "(nobody)".to_owned(),
        (users, groups) if groups.is_empty() => users,
        (users, groups) if users.is_empty() => format!("groups: {groups}"),
        (users, groups) => format!("{users}; groups: {groups}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_shows_capacities_as_percentages_state_and_acls() {
        let info = pb::QueueInfoProto {
            queue_name: "a".to_owned(),
            queue_path: "root.a".to_owned(),
            capacity: 0.4,
            maximum_capacity: 1.0,
            current_capacity: 1.5,
            state: pb::QueueStateProto::QDraining.into(),
            absolute_capacity: 40.0,
            absolute_maximum_capacity: 100.0,
            absolute_used_capacity: 60.0,
            acl_submit_applications: "alice ".to_owned(),
            acl_administer_queue: " ".to_owned(),
            intra_queue_preemption_disabled: true,
            configured_capacity: "[memory=4096,vcores=4]".to_owned(),
            configured_maximum_capacity: "100".to_owned(),
            accessible_node_labels: vec!["ssd".to_owned(), "gpu".to_owned()],
            effective_min_resource: Some(pb::ResourceProto {
                memory: 4096,
                virtual_cores: 4,
                ..Default::default()
            }),
            queue_statistics: Some(pb::QueueStatisticsProto {
                num_apps_submitted: 3,
                num_apps_running: 2,
                num_apps_pending: 1,
                to_preempt_memory_mb: 2048,
                to_preempt_vcores: 2,
                to_preempt_containers: 2,
                preempted_memory_mb: 1024,
                preempted_vcores: 1,
                preempted_containers: 1,
                ..Default::default()
            }),
            ..Default::default()
        };
        let text = format_queue_status(&info);
        for line in [
            "\tQueue Path : root.a\n",
            "\tState : DRAINING\n",
            "\tCapacity : 40.0%\n",
            "\tCurrent Capacity : 150.0%\n",
            "\tAbsolute Used Capacity : 60.0%\n",
            "\tMaximum Parallel Apps : unlimited\n",
            "\tDefault Node Label expression : <DEFAULT_PARTITION>\n",
            "\tAccessible Node Labels : gpu,ssd\n",
            "\tPending Applications : 1\n",
            "\tSubmit Applications ACL : alice\n",
            "\tAdminister Queue ACL : (nobody)\n",
            "\tPreemption : enabled\n",
            "\tIntra-queue Preemption : disabled\n",
            "\tResources To Preempt : <memory:2048, vCores:2> in 2 containers\n",
            "\tPreempted Resources : <memory:1024, vCores:1> in 1 containers\n",
            "\tConfigured Capacity : [memory=4096,vcores=4]\n",
            "\tConfigured Maximum Capacity : 100\n",
            "\tEffective Capacity : <memory:4096, vCores:4>\n",
            "\tEffective Maximum Capacity : <memory:0, vCores:0>\n",
            "\tWeight : -1\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
    }

    #[test]
    fn status_escapes_names_paths_and_acls() {
        let info = pb::QueueInfoProto {
            queue_name: "a\x1b]0;x\x07".to_owned(),
            queue_path: "root.a\n\tState : RUNNING".to_owned(),
            acl_submit_applications: "alice\u{202e} ".to_owned(),
            child_queues: vec![pb::QueueInfoProto {
                queue_name: "b\x7f".to_owned(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let text = format_queue_status(&info);
        assert!(
            !text.contains(['\x1b', '\x07', '\x7f', '\u{202e}']),
            "{text:?}"
        );
        for line in [
            "\tQueue Name : a\\e]0;x\\a\n",
            "\tQueue Path : root.a\\n\\tState : RUNNING\n",
            "\tSubmit Applications ACL : alice\\u{202e}\n",
            "\tChild Queues : b\\x7f\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        assert_eq!(text.matches("\tState : ").count(), 1, "{text}");
    }

    #[test]
    fn acls_tell_inherited_from_nobody_and_groups_from_users() {
        let info = pb::QueueInfoProto {
            queue_path: "root.a.a1".to_owned(),
            acl_submit_applications: String::new(),
            acl_administer_queue: " ops,devs".to_owned(),
            ..Default::default()
        };
        let text = format_queue_status(&info);
        assert!(
            text.contains("\tSubmit Applications ACL : (inherited)\n"),
            "{text}"
        );
        assert!(
            text.contains("\tAdminister Queue ACL : groups: ops,devs\n"),
            "{text}"
        );
        for (value, shown) in [
            ("*", "*"),
            (" * ", "*"),
            (" ", "(nobody)"),
            ("alice,bob ", "alice,bob"),
            ("alice", "alice"),
            ("alice ops", "alice; groups: ops"),
            ("alice,bob ops,devs", "alice,bob; groups: ops,devs"),
        ] {
            assert_eq!(format_acl(value), shown, "{value:?}");
        }
    }
}

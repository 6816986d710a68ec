//! No container id is issued twice.
//!
//! Evidence, from three sources that must agree: every container the NodeManagers listed
//! (polled past the proxies), every container the RM listed in GetContainers answers, and every
//! task container an ApplicationMaster reported in its final diagnostics. An id seen on two
//! nodes, with two execution types (NodeManager listings) or two sizes (NodeManager and RM
//! listings: an AM container's id handed out again for a task changes size even when the task
//! lands on the AM's node), or twice in one application's list was issued twice. Ids carry the
//! epoch of the leader that allocated them, so a new leader reusing a sequence number shows up
//! here only if it also reused its predecessor's epoch.

use std::collections::{BTreeMap, BTreeSet};

use super::{CheckInput, Verdict, listing};

pub(super) fn check(input: &CheckInput<'_>) -> Verdict {
    let observations = input.observations;
    let node_of = |node_id: &str| {
        observations
            .node_name(node_id)
            .map_or_else(|| node_id.to_owned(), str::to_owned)
    };
    let mut nodes: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut kinds: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut sizes: BTreeMap<&str, BTreeSet<(u64, u64)>> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut on_nodes = BTreeSet::new();
    for snapshot in &observations.node_snapshots {
        for container in &snapshot.containers {
            on_nodes.insert(container.id.as_str());
            nodes
                .entry(&container.id)
                .or_default()
                .insert(snapshot.node.clone());
            kinds
                .entry(&container.id)
                .or_default()
                .insert(container.execution_type.as_str());
            sizes
                .entry(&container.id)
                .or_default()
                .insert((container.memory_mb, container.vcores));
        }
    }
    let mut listed_by_rm = BTreeSet::new();
    for list in input.history.container_lists() {
        for container in list.containers {
            listed_by_rm.insert(container.id.as_str());
            nodes
                .entry(&container.id)
                .or_default()
                .insert(node_of(&container.node_id));
            if container.memory_mb > 0 {
                sizes
                    .entry(&container.id)
                    .or_default()
                    .insert((container.memory_mb, container.vcores));
            }
        }
    }
    let mut reported = 0_usize;
    let mut results = Vec::new();
    for app in &observations.applications {
        let Some(report) = &app.report else { continue };
        results.push((
            app.application_id.as_str(),
            yarn_applications::dshell::parse_diagnostics(&report.diagnostics),
        ));
    }
    for (application_id, results) in &results {
        let mut seen = BTreeSet::new();
        for result in results {
            reported += 1;
            if !seen.insert(result.container_id.as_str()) {
                problems.push(format!(
                    "{} is reported twice by the ApplicationMaster of {application_id}",
                    result.container_id
                ));
            }
            nodes
                .entry(&result.container_id)
                .or_default()
                .insert(node_of(&result.node));
        }
    }
    for (id, on) in &nodes {
        if on.len() > 1 {
            problems.push(format!(
                "{id} was seen on {}",
                on.iter().cloned().collect::<Vec<_>>().join(" and ")
            ));
        }
    }
    for (id, seen) in &kinds {
        if seen.len() > 1 {
            let kinds: Vec<&str> = seen.iter().copied().collect();
            problems.push(format!("{id} was listed as {}", kinds.join(" and as ")));
        }
    }
    for (id, seen) in &sizes {
        if seen.len() > 1 {
            let sizes: Vec<String> = seen
                .iter()
                .map(|(memory, vcores)| format!("{memory} MB {vcores} vcores"))
                .collect();
            problems.push(format!("{id} was listed with {}", sizes.join(" and with ")));
        }
    }
    if !problems.is_empty() {
        return Verdict::Violated(listing(&problems));
    }
    if nodes.is_empty() {
        return Verdict::NotExercised("no container was seen".to_owned());
    }
    Verdict::Held(format!(
        "{} distinct container ids ({} listed by NodeManagers, {} by the RM, {} task results \
         in ApplicationMaster diagnostics), each on one node with one type and size",
        nodes.len(),
        on_nodes.len(),
        listed_by_rm.len(),
        reported
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{Scenario, container, diagnostics_line, view};
    use super::*;

    #[test]
    fn containers_on_one_node_each_hold() {
        let mut scenario = Scenario::new();
        let (a, b) = (container(1, 1, 0), container(1, 2, 1));
        scenario
            .snapshot(
                1_000,
                1,
                vec![view(&a, "RUNNING", "GUARANTEED", 128, -1000)],
            )
            .snapshot(
                1_000,
                2,
                vec![view(&b, "RUNNING", "GUARANTEED", 256, -1000)],
            )
            .rm_list(1, 1_100, &[(&a, 1), (&b, 2)])
            .report(
                1,
                "FINISHED",
                "SUCCEEDED",
                1,
                &diagnostics_line(&b, 2, 0, ""),
                5_000,
            );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Held(_)), "{verdict:?}");
        assert!(verdict.evidence().starts_with("2 distinct"), "{verdict:?}");
    }

    #[test]
    fn a_duplicated_container_id_on_two_nodes_is_a_violation() {
        let mut scenario = Scenario::new();
        let id = container(1, 2, 0);
        scenario
            .snapshot(
                1_000,
                1,
                vec![view(&id, "RUNNING", "GUARANTEED", 256, -1000)],
            )
            .snapshot(
                9_000,
                2,
                vec![view(&id, "RUNNING", "GUARANTEED", 256, -1000)],
            );
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(verdict.evidence().contains("nm1 and nm2"), "{verdict:?}");
    }

    #[test]
    fn one_id_with_two_shapes_or_reported_twice_is_a_violation() {
        let mut scenario = Scenario::new();
        let id = container(2, 3, 0);
        scenario
            .snapshot(
                1_000,
                1,
                vec![view(&id, "RUNNING", "GUARANTEED", 256, -1000)],
            )
            .snapshot(
                2_000,
                1,
                vec![view(&id, "RUNNING", "OPPORTUNISTIC", 256, -1000)],
            );
        assert!(check(&scenario.input()).evidence().contains("listed as"));

        let mut twice = Scenario::new();
        let line = diagnostics_line(&id, 1, 0, "");
        twice.report(
            2,
            "FINISHED",
            "SUCCEEDED",
            1,
            &format!("{line}\n{line}"),
            5_000,
        );
        let verdict = check(&twice.input());
        assert!(verdict.evidence().contains("reported twice"), "{verdict:?}");
    }

    #[test]
    fn an_am_container_id_the_rm_lists_again_with_a_task_size_is_a_violation() {
        let mut scenario = Scenario::new();
        let id = container(1, 1, 0);
        scenario
            .snapshot(
                1_000,
                1,
                vec![view(&id, "RUNNING", "GUARANTEED", 128, -1000)],
            )
            .rm_list_sized(1, 1_100, &[(&id, 1, 128)])
            .rm_list_sized(1, 6_000, &[(&id, 1, 512)]);
        let verdict = check(&scenario.input());
        assert!(matches!(verdict, Verdict::Violated(_)), "{verdict:?}");
        assert!(
            verdict
                .evidence()
                .contains("listed with 128 MB 1 vcores and with 512 MB 1 vcores"),
            "{verdict:?}"
        );
        // A listing of unknown size (an older history) is no evidence either way.
        let mut unsized_list = Scenario::new();
        unsized_list
            .snapshot(
                1_000,
                1,
                vec![view(&id, "RUNNING", "GUARANTEED", 128, -1000)],
            )
            .rm_list(1, 1_100, &[(&id, 1)]);
        assert!(check(&unsized_list.input()).passed());
    }

    #[test]
    fn the_rm_placing_a_container_elsewhere_than_its_node_is_a_violation() {
        let mut scenario = Scenario::new();
        let id = container(1, 4, 0);
        scenario
            .snapshot(
                1_000,
                1,
                vec![view(&id, "RUNNING", "GUARANTEED", 256, -1000)],
            )
            .rm_list(1, 1_100, &[(&id, 2)]);
        assert!(!check(&scenario.input()).passed());
    }
}

//! The scheduler page (`/cluster/scheduler`): the CapacityScheduler's queue tree, each queue
//! with a bar of what it uses against its guarantee, and each leaf's users.

use std::collections::BTreeMap;

use axum::extract::State;
use maud::{Markup, html};
use yarn_scheduler::QueueInfo;
use yarn_web::usage_bar;

use super::render;
use super::ui_refusal::UiRefusal;
use crate::rest::RestApi;
use crate::rest::rest_api::RestCaller;

/// `queues` in the order the tree is drawn: each queue followed by its children in the order
/// their parent lists them, with its depth below `root`; a plan queue that hides its
/// reservation queues (`show-reservations-as-queues`) is drawn without them.
pub(super) fn tree_order(queues: &[QueueInfo]) -> Vec<(usize, &QueueInfo)> {
    let by_path: BTreeMap<&str, &QueueInfo> = queues
        .iter()
        .map(|queue| (queue.queue_path.as_str(), queue))
        .collect();
    let mut ordered = Vec::with_capacity(queues.len());
    let mut pending: Vec<(usize, &QueueInfo)> = by_path
        .get("root")
        .map(|root| (0, *root))
        .into_iter()
        .collect();
    while let Some((depth, queue)) = pending.pop() {
        ordered.push((depth, queue));
        if !queue.shows_reservation_queues {
            continue;
        }
        // Pushed in reverse so that the first child is drawn first.
        for child in queue.child_queues.iter().rev() {
            if let Some(child) = by_path.get(format!("{}.{child}", queue.queue_path).as_str()) {
                pending.push((depth + 1, *child));
            }
        }
    }
    ordered
}

pub(super) async fn scheduler(
    State(api): State<RestApi>,
    RestCaller(caller): RestCaller,
) -> Result<Markup, UiRefusal> {
    let queues = api.operations.queue_infos().await?;
    let content = html! {
        p {
            "Bars show each queue's use of the cluster (filled) against its guaranteed \
             capacity (the mark), both as shares of the whole cluster."
        }
        table #queues {
            tr {
                th { "Queue" } th { "State" } th { "Used / Capacity" } th { "Configured" }
                th { "Effective" } th { "Capacity" }
                th { "Used Capacity" } th { "Max Capacity" } th { "Absolute Capacity" }
                th { "Absolute Used Capacity" } th { "Absolute Max Capacity" }
                th { "Used Resources" } th { "Num Active Applications" }
                th { "Num Pending Applications" }
            }
            @for (depth, queue) in tree_order(&queues) {
                tr data-queue=(queue.queue_path) {
                    td style=(format!("padding-left:{}px", 6 + depth * 16)) {
                        (queue.queue_name)
                    }
                    td { (queue.state) }
                    td { (usage_bar(queue.absolute_used_capacity, queue.absolute_capacity)) }
                    td.configured {
                        (queue.configured_capacity) " / max " (queue.configured_maximum_capacity)
                    }
                    td.effective {
                        (queue.guaranteed_resource) " / max " (queue.maximum_resource)
                    }
                    td.num { (format!("{:.1}%", queue.capacity)) }
                    td.num { (format!("{:.1}%", queue.used_capacity)) }
                    td.num { (format!("{:.1}%", queue.maximum_capacity)) }
                    td.num { (format!("{:.1}%", queue.absolute_capacity)) }
                    td.num { (format!("{:.1}%", queue.absolute_used_capacity)) }
                    td.num { (format!("{:.1}%", queue.absolute_maximum_capacity)) }
                    td { (queue.resources_used) }
                    td.num { (queue.num_active_applications) }
                    td.num { (queue.num_pending_applications) }
                }
            }
        }
        @for (_, queue) in tree_order(&queues) {
            @if !queue.users.is_empty() {
                h3 { "Active users of " (queue.queue_path) }
                table.users data-queue=(queue.queue_path) {
                    tr {
                        th { "User Name" } th { "Used Resource" } th { "User Limit" }
                        th { "AM Used Resource" } th { "Active Apps" } th { "Pending Apps" }
                        th { "Weight" }
                    }
                    @for user in &queue.users {
                        tr {
                            td { (user.user) }
                            td { (user.resources_used) }
                            td { (user.user_limit) }
                            td { (user.am_resources_used) }
                            td.num { (user.num_active_applications) }
                            td.num { (user.num_pending_applications) }
                            td.num { (user.weight) }
                        }
                    }
                }
            }
        }
    };
    Ok(render(&api, &caller, "Scheduler", &content))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduling::LeaderScheduler;
    use crate::scheduling::capacity_properties as properties;
    use crate::scheduling::test_fixtures::{nodes, source, state};

    #[test]
    fn the_tree_is_drawn_depth_first_in_the_parents_order() {
        let state = state(properties(&[
            ("root.queues", "b,a"),
            ("root.a.capacity", "60"),
            ("root.a.queues", "a1"),
            ("root.a.a1.capacity", "100"),
            ("root.b.capacity", "40"),
        ]));
        let (leader, _) = LeaderScheduler::rebuild(&state, &source(), &nodes(2)).unwrap();
        let mut queues = leader.scheduler().queue_infos();
        queues.reverse();
        let drawn: Vec<(usize, &str)> = tree_order(&queues)
            .into_iter()
            .map(|(depth, queue)| (depth, queue.queue_path.as_str()))
            .collect();
        assert_eq!(
            drawn,
            [(0, "root"), (1, "root.b"), (1, "root.a"), (2, "root.a.a1")]
        );
    }
}

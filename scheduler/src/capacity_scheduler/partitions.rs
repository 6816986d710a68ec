//! Node labels in the scheduler: which partition each node is in, what each labelled
//! partition holds, the queues' capacities there, usage charged to the partition of the node a
//! container runs on, and the label expressions of applications and asks.
//!
//! The default partition (nodes without a label) is the scheduler's `cluster_resource`, and
//! the queues' `effective` and `used`: what every limit, report and preemption round reads. A
//! labelled partition lives beside it, in each queue's `labelled` shares, and is scheduled by a
//! pass of its own ([`schedule`](CapacityScheduler::schedule)).

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, NodeId};

use super::CapacityScheduler;
use crate::Resource;
use crate::effective_capacity::EffectiveCapacity;
use crate::error::SchedulerError;
use crate::node_labels::{NodeLabels, check_label_name};
use crate::queue::change;

impl CapacityScheduler {
    /// The cluster's labels and node mappings in force.
    pub fn node_labels(&self) -> &NodeLabels {
        &self.node_labels
    }

    /// Puts every node in the partition `labels` gives it, as the replicated labels changed;
    /// with `yarn.node-labels.enabled` false, every node stays in the default partition.
    /// The containers of a node that changes partition stay, and their usage moves with the
    /// node to its new partition, as Hadoop moves it; capacities follow the partitions' new
    /// sizes at once.
    pub fn set_node_labels(&mut self, labels: NodeLabels) {
        let labels = if self.conf.settings().node_labels_enabled {
            labels
        } else {
            NodeLabels::default()
        };
        let moves: Vec<(NodeId, String)> = self
            .nodes
            .values()
            .filter(|node| labels.partition_of(node.node_id()) != node.partition())
            .map(|node| {
                (
                    node.node_id().clone(),
                    labels.partition_of(node.node_id()).to_owned(),
                )
            })
            .collect();
        self.node_labels = labels;
        for (node_id, partition) in moves {
            let Some(node) = self.nodes.get(&node_id) else {
                continue;
            };
            let (capability, old) = (node.capability(), node.partition().to_owned());
            let containers: Vec<_> = node
                .containers()
                .iter()
                .filter_map(|id| self.containers.get(id).cloned())
                .collect();
            for allocation in &containers {
                self.account_usage(
                    allocation.application_attempt_id.application_id,
                    &old,
                    allocation.resource,
                    false,
                );
            }
            self.resize_partition(&old, capability, false);
            if let Some(node) = self.nodes.get_mut(&node_id) {
                node.set_partition(partition.clone());
            }
            self.resize_partition(&partition, capability, true);
            for allocation in &containers {
                self.account_usage(
                    allocation.application_attempt_id.application_id,
                    &partition,
                    allocation.resource,
                    true,
                );
            }
        }
        self.labelled_resources
            .retain(|label, _| self.node_labels.contains(label));
        for label in self.node_labels.labels() {
            self.labelled_resources.entry(label.name).or_default();
        }
        self.update_queue_resources();
        self.activate();
    }

    /// The capability of the nodes in `partition` (`""`: the default partition).
    pub fn partition_resource(&self, partition: &str) -> Resource {
        if partition.is_empty() {
            self.cluster_resource
        } else {
            self.labelled_resources
                .get(partition)
                .copied()
                .unwrap_or_default()
        }
    }

    /// Checks an application's label expressions before it is stored, as Hadoop validates
    /// them at submission: its own (`default`, for its asks; blank, the leaf's
    /// `default-node-label-expression`) and its AM's (`am`; blank, the application's) are each
    /// one label of the cluster that the leaf the application goes to may use.
    ///
    /// # Errors
    ///
    /// Those of queue resolution, and [`SchedulerError::InvalidLabelRequest`].
    pub fn check_application_labels(
        &self,
        application_id: ApplicationId,
        queue: &str,
        user: &str,
        default: &str,
        am: &str,
    ) -> Result<(), SchedulerError> {
        let leaf = self.resolve_leaf(application_id, queue, user)?;
        let attempt = ApplicationAttemptId::new(application_id, 1);
        let queue_default = &self.queues[leaf].conf.node_labels.default_expression;
        let default = self.resolve_label(attempt, leaf, default, queue_default)?;
        self.resolve_label(attempt, leaf, am, &default)?;
        Ok(())
    }

    /// Sets the label of an accepted application's asks that name none, and of its AM
    /// container: the submission's `node_label_expression`, else the leaf's
    /// `default-node-label-expression`; the AM container's own expression, else that default.
    /// Called before the application's attempt is added: an active attempt keeps its AM's
    /// partition.
    ///
    /// # Errors
    ///
    /// [`SchedulerError::UnknownApplication`], [`SchedulerError::InvalidLabelRequest`];
    /// nothing changes then.
    pub fn set_application_labels(
        &mut self,
        application_id: ApplicationId,
        default: &str,
        am: &str,
    ) -> Result<(), SchedulerError> {
        let app = self.application(application_id)?;
        let attempt = ApplicationAttemptId::new(application_id, 1);
        let queue_default = &self.queues[app.leaf].conf.node_labels.default_expression;
        let default = self.resolve_label(attempt, app.leaf, default, queue_default)?;
        let am = self.resolve_label(attempt, app.leaf, am, &default)?;
        if let Some(app) = self.applications.get_mut(&application_id) {
            app.default_label = default;
            // An active attempt's AM is charged in its partition: it keeps it.
            if !app.attempt.as_ref().is_some_and(|attempt| attempt.active) {
                app.am_label = am;
            }
        }
        // No activation here: the attempt that waits for it comes next, and activates.
        Ok(())
    }

    /// The partition an expression asks for: the label it names, or `fallback` when it is
    /// blank (the application's label, or the queue's `default-node-label-expression`),
    /// once that label is known to be one label of the cluster that `leaf` may use, with
    /// labels enabled; `""` (the default partition) passes unchecked.
    pub(super) fn resolve_label(
        &self,
        attempt: ApplicationAttemptId,
        leaf: usize,
        expression: &str,
        fallback: &str,
    ) -> Result<String, SchedulerError> {
        let label = match expression.trim() {
            "" => fallback.trim(),
            named => named,
        };
        if label.is_empty() {
            return Ok(String::new());
        }
        let refuse = |reason: String| SchedulerError::InvalidLabelRequest {
            attempt,
            expression: label.to_owned(),
            reason,
        };
        if !self.conf.settings().node_labels_enabled {
            return Err(refuse(
                "asks for a partition, but node labels are not enabled \
                 (yarn.node-labels.enabled is false)"
                    .into(),
            ));
        }
        if check_label_name(label).is_err() {
            return Err(refuse(
                "is not one label: yarn-ha, as Hadoop's CapacityScheduler, takes a single label \
                 (no && or ||)"
                    .into(),
            ));
        }
        if !self.node_labels.contains(label) {
            return Err(refuse("names a label the cluster does not have".into()));
        }
        let queue = &self.queues[leaf].conf;
        if !queue.node_labels.can_access(label) {
            return Err(refuse(format!(
                "names a label queue {} may not use (its accessible-node-labels)",
                queue.path
            )));
        }
        Ok(label.to_owned())
    }

    /// Whether partitions `a` and `b` are one: a check the pass makes for every ask and node,
    /// without a byte comparison for the default partition.
    #[inline]
    pub(super) fn same_partition(a: &str, b: &str) -> bool {
        if a.is_empty() { b.is_empty() } else { a == b }
    }

    /// The partition of a registered node; `""` for an unknown one.
    pub(super) fn node_partition(&self, node_id: &NodeId) -> &str {
        self.nodes.get(node_id).map_or("", |node| node.partition())
    }

    /// Adds `capability` to the nodes of `partition`, or takes it back.
    pub(super) fn resize_partition(&mut self, partition: &str, capability: Resource, add: bool) {
        let total = if partition.is_empty() {
            &mut self.cluster_resource
        } else {
            self.labelled_resources
                .entry(partition.to_owned())
                .or_default()
        };
        change(total, capability, add);
    }

    /// Charges `resource` used in `partition` to the application, its queue path and (in the
    /// default partition) its user, or takes it back: the one place container usage is
    /// counted.
    pub(super) fn account_usage(
        &mut self,
        application_id: ApplicationId,
        partition: &str,
        resource: Resource,
        add: bool,
    ) {
        if partition.is_empty() {
            change(&mut self.cluster_used, resource, add);
        }
        let Some(app) = self.applications.get_mut(&application_id) else {
            return;
        };
        change(&mut app.used, resource, add);
        if !partition.is_empty() {
            let labelled = app.labelled_used.entry(partition.to_owned()).or_default();
            change(labelled, resource, add);
            if labelled.is_zero() {
                app.labelled_used.remove(partition);
            }
        }
        let (leaf, user) = (app.leaf, app.user.clone());
        super::for_each_up(&mut self.queues, leaf, |q| {
            q.charge_in(partition, resource, add)
        });
        if partition.is_empty()
            && let Some(entry) = self.queues[leaf].users.get_mut(&user)
        {
            change(&mut entry.used, resource, add);
        }
    }

    /// Every queue's capacities in each labelled partition: `root` has all of it, and a child
    /// its percentages of its parent's share, guaranteed and at most.
    pub(super) fn update_labelled_capacities(&mut self) {
        for index in 0..self.queues.len() {
            let parent = self.queues[index].parent;
            let mut labelled = std::mem::take(&mut self.queues[index].labelled);
            for (label, total) in &self.labelled_resources {
                let own = self.queues[index].conf.node_labels.capacity(label);
                let (parent_absolute, parent_maximum) = parent.map_or((100.0, 100.0), |p| {
                    let effective = self.queues[p].effective_in(label);
                    (
                        effective.absolute_capacity,
                        effective.absolute_maximum_capacity,
                    )
                });
                let (capacity, maximum_capacity) = match parent {
                    None => (100.0, 100.0),
                    Some(_) => (own.capacity, own.maximum_capacity),
                };
                let absolute_capacity = parent_absolute * capacity / 100.0;
                let absolute_maximum_capacity = parent_maximum * maximum_capacity / 100.0;
                let share = labelled.entry(label.clone()).or_default();
                share.effective = EffectiveCapacity {
                    guaranteed: total.multiply_and_round_down(absolute_capacity / 100.0),
                    maximum: total.multiply_and_round_down(absolute_maximum_capacity / 100.0),
                    capacity,
                    maximum_capacity,
                    absolute_capacity,
                    absolute_maximum_capacity,
                };
            }
            // A removed label's share goes once nothing is charged to it any more.
            labelled.retain(|label, share| {
                self.labelled_resources.contains_key(label)
                    || !share.used.is_zero()
                    || !share.am_used.is_zero()
            });
            self.queues[index].labelled = labelled;
        }
    }
}

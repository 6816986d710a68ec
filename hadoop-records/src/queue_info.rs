//! `QueueInfoProto`: yarn-ha numbered its own additions 12 to 19, which Hadoop has since given
//! other fields, so only fields 1 to 11 are re-encoded and the rest is moved by hand.
//!
//! | yarn-ha                       | Hadoop                                                   |
//! |-------------------------------|----------------------------------------------------------|
//! | 12 `queue_path`               | 15 `queuePath`                                           |
//! | 18 `max_parallel_apps`        | 16 `maxParallelApps`                                     |
//! | 13 `absolute_capacity`        | 12 `queueConfigurationsMap[""].absoluteCapacity`         |
//! | 14 `absolute_maximum_capacity`| 12 `queueConfigurationsMap[""].absoluteMaxCapacity`      |
//! | 101 `intra_queue_preemption_disabled` | 13 `intraQueuePreemptionDisabled`                |
//! | 104 `effective_min_resource`  | 12 `queueConfigurationsMap[""].effectiveMinCapacity`     |
//! | 105 `effective_max_resource`  | 12 `queueConfigurationsMap[""].effectiveMaxCapacity`     |
//! | 106 `weight`                  | 14 `weight` (-1, Hadoop's "not a weight", when absent)   |
//! | 15, 16, 17, 19, 102, 103      | none: not sent                                           |
//!
//! Hadoop's 13, 14 and 17 to 27 (FairScheduler and federation details) are dropped.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::{Convert, Nested};
use crate::hadoop::yarn as hadoop;
use crate::transcode::{to_hadoop, transcode};

/// The partition Hadoop's CapacityScheduler reports a queue's unlabelled capacities under.
const DEFAULT_PARTITION: &str = "";
/// Hadoop's weight of a queue whose capacity is not one.
const NOT_A_WEIGHT: f32 = -1.0;

impl Convert for pb::QueueInfoProto {
    type Hadoop = hadoop::QueueInfoProto;

    fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let common = hadoop::QueueInfoProto {
            queue_name: hadoop.queue_name.clone(),
            capacity: hadoop.capacity,
            maximum_capacity: hadoop.maximum_capacity,
            current_capacity: hadoop.current_capacity,
            state: hadoop.state,
            accessible_node_labels: hadoop.accessible_node_labels.clone(),
            default_node_label_expression: hadoop.default_node_label_expression.clone(),
            queue_statistics: hadoop.queue_statistics,
            preemption_disabled: hadoop.preemption_disabled,
            ..Default::default()
        };
        let mut record: Self = transcode(&common)?;
        record.child_queues = Nested::from_hadoop(hadoop.child_queues)?;
        record.applications = Nested::from_hadoop(hadoop.applications)?;
        record.queue_path = hadoop.queue_path.unwrap_or_default();
        record.max_parallel_apps = hadoop.max_parallel_apps;
        record.intra_queue_preemption_disabled =
            hadoop.intra_queue_preemption_disabled.unwrap_or_default();
        if let Some(configured) = hadoop
            .queue_configurations_map
            .into_iter()
            .find(|entry| entry.partition_name == DEFAULT_PARTITION)
            .and_then(|entry| entry.queue_configurations)
        {
            record.absolute_capacity = configured.absolute_capacity();
            record.absolute_maximum_capacity = configured.absolute_max_capacity();
            record.effective_min_resource = configured
                .effective_min_capacity
                .map(Convert::from_hadoop)
                .transpose()?;
            record.effective_max_resource = configured
                .effective_max_capacity
                .map(Convert::from_hadoop)
                .transpose()?;
        }
        record.weight = hadoop.weight.filter(|weight| *weight >= 0.0);
        Ok(record)
    }

    fn to_hadoop(&self) -> Self::Hadoop {
        let common = pb::QueueInfoProto {
            queue_name: self.queue_name.clone(),
            capacity: self.capacity,
            maximum_capacity: self.maximum_capacity,
            current_capacity: self.current_capacity,
            state: self.state,
            accessible_node_labels: self.accessible_node_labels.clone(),
            default_node_label_expression: self.default_node_label_expression.clone(),
            queue_statistics: self.queue_statistics,
            preemption_disabled: self.preemption_disabled,
            ..Default::default()
        };
        let mut hadoop: Self::Hadoop = to_hadoop(&common);
        hadoop.child_queues = Nested::to_hadoop(&self.child_queues);
        hadoop.applications = Nested::to_hadoop(&self.applications);
        hadoop.queue_path = (!self.queue_path.is_empty()).then(|| self.queue_path.clone());
        hadoop.max_parallel_apps = self.max_parallel_apps;
        hadoop.intra_queue_preemption_disabled = Some(self.intra_queue_preemption_disabled);
        hadoop.weight = Some(self.weight.unwrap_or(NOT_A_WEIGHT));
        hadoop.queue_configurations_map = vec![hadoop::QueueConfigurationsMapProto {
            partition_name: DEFAULT_PARTITION.to_owned(),
            queue_configurations: Some(hadoop::QueueConfigurationsProto {
                capacity: Some(self.capacity),
                absolute_capacity: Some(self.absolute_capacity),
                max_capacity: Some(self.maximum_capacity),
                absolute_max_capacity: Some(self.absolute_maximum_capacity),
                effective_min_capacity: self
                    .effective_min_resource
                    .as_ref()
                    .map(Convert::to_hadoop),
                effective_max_capacity: self
                    .effective_max_resource
                    .as_ref()
                    .map(Convert::to_hadoop),
                ..Default::default()
            }),
        }];
        hadoop
    }
}

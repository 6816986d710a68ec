//! The queue configuration a minicluster starts with.

use yarn_conf::writer;

/// The scheduler's configuration file, read beside `yarn-site.xml` as Hadoop's
/// CapacityScheduler does.
pub const CAPACITY_SCHEDULER_XML: &str = "capacity-scheduler.xml";

/// `capacity-scheduler.xml` with the smallest valid hierarchy: `root` with the single child
/// `default`, which owns all of the cluster (capacity and maximum capacity 100).
pub fn capacity_scheduler_xml() -> String {
    writer::site_xml([
        ("yarn.scheduler.capacity.root.queues", "default"),
        ("yarn.scheduler.capacity.root.default.capacity", "100"),
        (
            "yarn.scheduler.capacity.root.default.maximum-capacity",
            "100",
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_queue_owns_the_whole_cluster() {
        let parsed =
            yarn_conf::loader::parse(CAPACITY_SCHEDULER_XML, &capacity_scheduler_xml()).unwrap();
        let properties: Vec<(&str, &str)> = parsed
            .iter()
            .map(|p| (p.name.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(
            properties,
            [
                ("yarn.scheduler.capacity.root.queues", "default"),
                ("yarn.scheduler.capacity.root.default.capacity", "100"),
                (
                    "yarn.scheduler.capacity.root.default.maximum-capacity",
                    "100"
                ),
            ]
        );
    }
}

//! [`ExecutorKind`]: which executor `yarn.nodemanager.container-executor.class` selects.

/// How a NodeManager runs containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutorKind {
    /// Real processes, as Hadoop's `DefaultContainerExecutor` runs them: the product.
    Default,
    /// Timers instead of processes, so that one process can host many NodeManagers for load
    /// and scale tests.
    Simulated,
}

impl ExecutorKind {
    /// Hadoop's class name for the default executor, accepted so that a `yarn-site.xml` copied
    /// from a Hadoop cluster keeps working.
    pub const HADOOP_DEFAULT_CLASS: &'static str =
        "org.apache.hadoop.yarn.server.nodemanager.DefaultContainerExecutor";

    /// The accepted values, as configuration errors describe them.
    pub const EXPECTED: &'static str = "default, simulated or \
         org.apache.hadoop.yarn.server.nodemanager.DefaultContainerExecutor";

    /// Reads a value of `yarn.nodemanager.container-executor.class`: `default` or `simulated`
    /// (any case), or [`HADOOP_DEFAULT_CLASS`](Self::HADOOP_DEFAULT_CLASS). Anything else,
    /// including Hadoop's other executors, gives `None`.
    pub fn parse(value: &str) -> Option<Self> {
        if value.eq_ignore_ascii_case("default") || value == Self::HADOOP_DEFAULT_CLASS {
            Some(Self::Default)
        } else if value.eq_ignore_ascii_case("simulated") {
            Some(Self::Simulated)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_hadoops_default_class_are_accepted() {
        assert_eq!(ExecutorKind::parse("default"), Some(ExecutorKind::Default));
        assert_eq!(
            ExecutorKind::parse("Simulated"),
            Some(ExecutorKind::Simulated)
        );
        assert_eq!(
            ExecutorKind::parse(ExecutorKind::HADOOP_DEFAULT_CLASS),
            Some(ExecutorKind::Default)
        );
        assert_eq!(ExecutorKind::parse("docker"), None);
        assert_eq!(ExecutorKind::parse(""), None);
    }
}

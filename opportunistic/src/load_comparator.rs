//! Which per-node metric orders nodes from least to most loaded.

use std::fmt;
use std::str::FromStr;

use crate::{Error, NodeLoad};

/// The metric that ranks NodeManagers for opportunistic placement and that the queue limit is
/// computed over (`yarn.resourcemanager.nm-container-queuing.load-comparator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadComparator {
    /// Number of containers waiting in the NM's queue.
    #[default]
    QueueLength,
    /// The NM's estimate of how long a new container would wait, in milliseconds.
    QueueWaitTime,
}

impl LoadComparator {
    /// The node's load by this metric, or `None` when the node reports no value for it (no
    /// wait-time estimate), in which case it cannot be ranked.
    pub(crate) fn metric(self, load: &NodeLoad) -> Option<i64> {
        match self {
            Self::QueueLength => Some(i64::from(load.queue_length)),
            Self::QueueWaitTime => load.known_wait_time_ms().map(i64::from),
        }
    }
}

impl FromStr for LoadComparator {
    type Err = Error;

    /// Parses Hadoop's names, ignoring ASCII case as Hadoop's enum lookup in configuration does
    /// not, so that a lower-case value in yarn-site.xml is not a silent surprise.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_uppercase().as_str() {
            "QUEUE_LENGTH" => Ok(Self::QueueLength),
            "QUEUE_WAIT_TIME" => Ok(Self::QueueWaitTime),
            _ => Err(Error::UnknownLoadComparator {
                value: s.to_string(),
            }),
        }
    }
}

impl fmt::Display for LoadComparator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::QueueLength => "QUEUE_LENGTH",
            Self::QueueWaitTime => "QUEUE_WAIT_TIME",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hadoop_names_and_rejects_others() {
        assert_eq!("QUEUE_LENGTH".parse(), Ok(LoadComparator::QueueLength));
        assert_eq!(
            " queue_wait_time ".parse(),
            Ok(LoadComparator::QueueWaitTime)
        );
        let err = "QUEUE".parse::<LoadComparator>().unwrap_err();
        assert!(err.to_string().contains("\"QUEUE\""), "{err}");
        assert_eq!(LoadComparator::QueueWaitTime.to_string(), "QUEUE_WAIT_TIME");
    }
}

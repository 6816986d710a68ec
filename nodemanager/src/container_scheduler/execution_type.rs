//! [`ExecutionType`]: how a container is executed on its node.

use yarn_proto::pb;

/// How the NodeManager treats a container, as in YARN.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ExecutionType {
    /// Starts at once; the node kills opportunistic containers to make room if it must.
    #[default]
    Guaranteed,
    /// Runs only on free resources: it may wait in the node's queue and may be killed to make
    /// room for a guaranteed container.
    Opportunistic,
}

/// `EXECUTION_TYPE_UNSPECIFIED` means GUARANTEED, YARN's default.
impl From<pb::ExecutionTypeProto> for ExecutionType {
    fn from(proto: pb::ExecutionTypeProto) -> Self {
        match proto {
            pb::ExecutionTypeProto::Opportunistic => Self::Opportunistic,
            pb::ExecutionTypeProto::Guaranteed
            | pb::ExecutionTypeProto::ExecutionTypeUnspecified => Self::Guaranteed,
        }
    }
}

impl From<ExecutionType> for pb::ExecutionTypeProto {
    fn from(execution_type: ExecutionType) -> Self {
        match execution_type {
            ExecutionType::Guaranteed => Self::Guaranteed,
            ExecutionType::Opportunistic => Self::Opportunistic,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_means_guaranteed_and_both_types_round_trip() {
        assert_eq!(
            ExecutionType::from(pb::ExecutionTypeProto::ExecutionTypeUnspecified),
            ExecutionType::Guaranteed
        );
        for execution_type in [ExecutionType::Guaranteed, ExecutionType::Opportunistic] {
            let proto = pb::ExecutionTypeProto::from(execution_type);
            assert_eq!(ExecutionType::from(proto), execution_type);
        }
    }
}

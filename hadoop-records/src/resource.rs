//! `ResourceProto`: Hadoop's clients list memory and vcores in `resource_value_map` too.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::Convert;
use crate::hadoop::yarn as hadoop;
use crate::transcode::{to_hadoop, transcode};

/// Hadoop's names of the two resource types a `ResourceProto` carries in fields 1 and 2.
const MEMORY_AND_VCORES: [&str; 2] = ["memory-mb", "vcores"];

impl Convert for pb::ResourceProto {
    type Hadoop = hadoop::ResourceProto;

    /// Drops the `memory-mb` and `vcores` entries, which repeat fields 1 and 2 (yarn-ha's map
    /// holds the other types only, and a scheduler would count them as extra types). The other
    /// entries keep their key and value; Hadoop's `units` are those the cluster configures for
    /// the type, which is the unit yarn-ha's values are in, so they are dropped with the type,
    /// tags and attributes yarn-ha does not model.
    fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        hadoop
            .resource_value_map
            .retain(|entry| !MEMORY_AND_VCORES.contains(&entry.key.as_str()));
        transcode(&hadoop)
    }

    fn to_hadoop(&self) -> Self::Hadoop {
        to_hadoop(self)
    }
}

//! `ResourceRequestProto`: Hadoop's `allocation_request_id` defaults to -1, yarn-ha's to 0.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::{Convert, Nested};
use crate::hadoop::yarn as hadoop;
use crate::transcode::{to_hadoop, transcode};

impl Convert for pb::ResourceRequestProto {
    type Hadoop = hadoop::ResourceRequestProto;

    /// An absent `allocation_request_id` is Hadoop's -1 (no id), not yarn-ha's 0, which is an
    /// id an AM may use.
    fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let capability = hadoop.capability.take();
        let allocation_request_id = hadoop.allocation_request_id();
        let mut record: Self = transcode(&hadoop)?;
        record.capability = Nested::from_hadoop(capability)?;
        record.allocation_request_id = allocation_request_id;
        Ok(record)
    }

    /// Always writes `allocation_request_id`, so that yarn-ha's 0 does not read as -1.
    fn to_hadoop(&self) -> Self::Hadoop {
        let rest = Self {
            capability: None,
            ..self.clone()
        };
        let mut hadoop: Self::Hadoop = to_hadoop(&rest);
        hadoop.capability = Nested::to_hadoop(&self.capability);
        hadoop.allocation_request_id = Some(self.allocation_request_id);
        hadoop
    }
}

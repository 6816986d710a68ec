//! `LocalResourceProto`: Hadoop's location is a `URLProto`, yarn-ha's a URL string.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::Convert;
use crate::hadoop::yarn as hadoop;
use crate::transcode::{to_hadoop, transcode};
use crate::url;

impl Convert for pb::LocalResourceProto {
    type Hadoop = hadoop::LocalResourceProto;

    /// An absent location reads as the empty string, as yarn-ha's record leaves it.
    fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let location = hadoop.resource.take();
        let mut record: Self = transcode(&hadoop)?;
        record.resource = match location {
            Some(location) => url::to_string(&location)?,
            None => String::new(),
        };
        Ok(record)
    }

    fn to_hadoop(&self) -> Self::Hadoop {
        let rest = Self {
            resource: String::new(),
            ..self.clone()
        };
        let mut hadoop: Self::Hadoop = to_hadoop(&rest);
        hadoop.resource = (!self.resource.is_empty()).then(|| url::from_string(&self.resource));
        hadoop
    }
}

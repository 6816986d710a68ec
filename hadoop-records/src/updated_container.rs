//! `UpdatedContainerProto`: both of Hadoop's fields are `required`, yarn-ha's are not.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::Convert;
use crate::hadoop::yarn as hadoop;

impl Convert for pb::UpdatedContainerProto {
    type Hadoop = hadoop::UpdatedContainerProto;

    fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        Ok(Self {
            update_type: Some(hadoop.update_type),
            container: Some(pb::ContainerProto::from_hadoop(hadoop.container)?),
        })
    }

    /// The RM always sets both; were one missing, Java would refuse the whole allocate
    /// response, so it goes out as its zero value (INCREASE_RESOURCE, an empty container).
    fn to_hadoop(&self) -> Self::Hadoop {
        hadoop::UpdatedContainerProto {
            update_type: self.update_type.unwrap_or_default(),
            container: self
                .container
                .as_ref()
                .map(Convert::to_hadoop)
                .unwrap_or_default(),
        }
    }
}

//! `ContainerLaunchContextProto`: its local resources hold Hadoop URLs (see
//! [`LocalResourceProto`](pb::LocalResourceProto)'s conversion); its other maps are Hadoop's
//! key/value lists already.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::Convert;
use crate::hadoop::yarn as hadoop;
use crate::transcode::{to_hadoop, transcode};

impl Convert for pb::ContainerLaunchContextProto {
    type Hadoop = hadoop::ContainerLaunchContextProto;

    /// A key listed twice keeps its last resource, as Hadoop's own records do.
    fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let resources = std::mem::take(&mut hadoop.local_resources);
        let mut record: Self = transcode(&hadoop)?;
        for entry in resources {
            let resource = entry.value.map(Convert::from_hadoop).transpose()?;
            record
                .local_resources
                .insert(entry.key.unwrap_or_default(), resource.unwrap_or_default());
        }
        Ok(record)
    }

    /// Lists the local resources by name, so the encoding does not depend on map order.
    fn to_hadoop(&self) -> Self::Hadoop {
        let rest = Self {
            local_resources: Default::default(),
            ..self.clone()
        };
        let mut hadoop: Self::Hadoop = to_hadoop(&rest);
        let mut names: Vec<&String> = self.local_resources.keys().collect();
        names.sort();
        hadoop.local_resources = names
            .into_iter()
            .map(|name| hadoop::StringLocalResourceMapProto {
                key: Some(name.clone()),
                value: Some(self.local_resources[name].to_hadoop()),
            })
            .collect();
        hadoop
    }
}

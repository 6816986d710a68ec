//! Container states: Hadoop has no SCHEDULED state. Its NodeManager reports a queued container as
//! RUNNING with sub-state SCHEDULED, and Java reads the unknown value 4 as no state at all.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::{Convert, Nested};
use crate::hadoop::yarn as hadoop;
use crate::transcode::{to_hadoop, transcode};

/// yarn-ha's state as Hadoop knows it: C_SCHEDULED becomes C_RUNNING, the rest stay.
fn hadoop_state(state: i32) -> i32 {
    if state == pb::ContainerStateProto::CScheduled as i32 {
        hadoop::ContainerStateProto::CRunning as i32
    } else {
        state
    }
}

impl Convert for pb::ContainerStatusProto {
    type Hadoop = hadoop::ContainerStatusProto;

    fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let capability = hadoop.capability.take();
        let mut record: Self = transcode(&hadoop)?;
        record.capability = Nested::from_hadoop(capability)?;
        Ok(record)
    }

    /// C_SCHEDULED goes out as C_RUNNING with sub-state CSS_SCHEDULED (unless the record names
    /// a sub-state already), as Hadoop's NodeManager reports a queued container.
    fn to_hadoop(&self) -> Self::Hadoop {
        let rest = Self {
            capability: None,
            ..self.clone()
        };
        let mut hadoop: Self::Hadoop = to_hadoop(&rest);
        hadoop.capability = Nested::to_hadoop(&self.capability);
        if self.state == pb::ContainerStateProto::CScheduled as i32 {
            hadoop.state = Some(hadoop_state(self.state));
            hadoop.container_sub_state = hadoop
                .container_sub_state
                .or(Some(hadoop::ContainerSubStateProto::CssScheduled as i32));
        }
        hadoop
    }
}

impl Convert for pb::ContainerReportProto {
    type Hadoop = hadoop::ContainerReportProto;

    fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let resource = hadoop.resource.take();
        let mut record: Self = transcode(&hadoop)?;
        record.resource = Nested::from_hadoop(resource)?;
        Ok(record)
    }

    /// C_SCHEDULED goes out as C_RUNNING; the report has no sub-state.
    fn to_hadoop(&self) -> Self::Hadoop {
        let rest = Self {
            resource: None,
            ..self.clone()
        };
        let mut hadoop: Self::Hadoop = to_hadoop(&rest);
        hadoop.resource = Nested::to_hadoop(&self.resource);
        hadoop.container_state = hadoop.container_state.map(hadoop_state);
        hadoop
    }
}

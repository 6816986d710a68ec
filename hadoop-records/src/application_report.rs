//! `ApplicationReportProto`: APP_UNDEFINED, the final status of every running application, is
//! enum value 0, which proto3 omits and Java reads back as null.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::{Convert, Nested};
use crate::hadoop::yarn as hadoop;
use crate::transcode::{to_hadoop, transcode};

impl Convert for pb::ApplicationReportProto {
    type Hadoop = hadoop::ApplicationReportProto;

    fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let usage = hadoop.app_resource_usage.take();
        let mut record: Self = transcode(&hadoop)?;
        record.app_resource_usage = Nested::from_hadoop(usage)?;
        Ok(record)
    }

    /// Always writes `final_application_status`, APP_UNDEFINED included.
    fn to_hadoop(&self) -> Self::Hadoop {
        let rest = Self {
            app_resource_usage: None,
            ..self.clone()
        };
        let mut hadoop: Self::Hadoop = to_hadoop(&rest);
        hadoop.app_resource_usage = Nested::to_hadoop(&self.app_resource_usage);
        hadoop.final_application_status = Some(self.final_application_status);
        hadoop
    }
}

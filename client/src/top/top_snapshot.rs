//! [`TopSnapshot`]: the ResourceManager's figures behind one refresh of `yarn-ha top`.

use yarn_security::now_ms;

use yarn_proto::pb;

use super::top_filter::{ROOT_QUEUE, TopFilter};
use crate::{Error, YarnClient};

/// What one refresh fetched from the active ResourceManager, and when.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TopSnapshot {
    /// When the figures were in hand, in ms since the Unix epoch: the time the header shows
    /// and running times are measured to.
    pub taken_at_ms: i64,
    /// Node counts by state, and when the answering ResourceManager started.
    pub cluster_metrics: pb::YarnClusterMetricsProto,
    /// The queues whose statistics the header sums: those of `-queues`, or those directly
    /// under root.
    pub queues: Vec<pb::QueueInfoProto>,
    /// The reports of the applications the filter selects.
    pub applications: Vec<pb::ApplicationReportProto>,
}

impl TopSnapshot {
    /// Asks the ResourceManager group, through `client` (so from whichever replica leads, across
    /// failovers), for the cluster metrics, the queues and the applications `filter` selects;
    /// the three calls run concurrently.
    ///
    /// # Errors
    ///
    /// The first error of the calls: those of [`YarnClient::get_cluster_metrics`],
    /// [`YarnClient::get_queue_info`] (an unknown `-queues` queue is the RM's `NOT_FOUND`
    /// naming it), [`YarnClient::get_child_queue_infos`] and [`YarnClient::get_applications`].
    pub async fn fetch(client: &YarnClient, filter: &TopFilter) -> Result<Self, Error> {
        let queues = async {
            if filter.queues().is_empty() {
                return client.get_child_queue_infos(ROOT_QUEUE).await;
            }
            let mut infos = Vec::with_capacity(filter.queues().len());
            for queue in filter.queues() {
                infos.push(client.get_queue_info(queue).await?);
            }
            Ok(infos)
        };
        let application_filter = filter.application_filter();
        let (cluster_metrics, queues, applications) = tokio::try_join!(
            client.get_cluster_metrics(),
            queues,
            client.get_applications(&application_filter),
        )?;
        Ok(Self {
            taken_at_ms: now_ms(),
            cluster_metrics,
            queues,
            applications,
        })
    }
}

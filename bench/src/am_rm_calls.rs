//! [`AmRmCalls`]: what the ApplicationMaster of `bench allocate` needs of its client, whatever
//! the transport, so that one round loop measures every path.

use anyhow::Context;
use yarn_client::{AllocateOutcome, AmRmClient};
use yarn_proto::pb;

/// An ApplicationMaster's registered client of the ApplicationMasterProtocol, keeping YARN's
/// allocate bookkeeping (yarn-client's `AmRmSession`): asks are added to the outstanding
/// table, releases ride on the next allocate, each container is delivered once.
pub(crate) trait AmRmCalls {
    /// Adds an ask, sent with the next allocate.
    fn add_container_request(&mut self, request: pb::ResourceRequestProto);

    /// Gives a container back with the next allocate.
    fn release_assigned_container(&mut self, container_id: pb::ContainerIdProto);

    /// One allocate heartbeat with `progress`: what it brought that is new.
    async fn allocate(&mut self, progress: f32) -> anyhow::Result<AllocateOutcome>;

    /// Unregisters with the final `status` and `diagnostics`, until the RM confirms.
    async fn finish(
        &mut self,
        status: pb::FinalApplicationStatusProto,
        diagnostics: &str,
    ) -> anyhow::Result<()>;
}

impl AmRmCalls for AmRmClient {
    fn add_container_request(&mut self, request: pb::ResourceRequestProto) {
        AmRmClient::add_container_request(self, request);
    }

    fn release_assigned_container(&mut self, container_id: pb::ContainerIdProto) {
        AmRmClient::release_assigned_container(self, container_id);
    }

    async fn allocate(&mut self, progress: f32) -> anyhow::Result<AllocateOutcome> {
        Ok(AmRmClient::allocate(self, progress).await?)
    }

    async fn finish(
        &mut self,
        status: pb::FinalApplicationStatusProto,
        diagnostics: &str,
    ) -> anyhow::Result<()> {
        AmRmClient::finish(self, status, diagnostics, "")
            .await
            .context("unregistering the ApplicationMaster")
    }
}

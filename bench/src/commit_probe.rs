//! [`CommitProbe`]: a Raft write on the leader, to time what a page costs the commits (the
//! scheduler's allocations, submissions, completions) that must wait for the state's write
//! lock while the page reads the state.

use std::time::{Duration, Instant};

use tonic::transport::Channel;
use yarn_proto::pb::GetNewApplicationRequestProto;
use yarn_proto::pb::application_client_protocol_client::ApplicationClientProtocolClient;

use crate::probe::Probe;

/// GetNewApplication on the leader: one Raft entry, committed on a quorum and applied under
/// the state's write lock before the answer. Each call uses up an application id and changes
/// nothing else.
#[derive(Debug)]
pub(crate) struct CommitProbe {
    client: ApplicationClientProtocolClient<Channel>,
}

impl CommitProbe {
    /// The probe writing through `client`, connected to the leader.
    pub(crate) fn new(client: ApplicationClientProtocolClient<Channel>) -> Self {
        Self { client }
    }
}

impl Probe for CommitProbe {
    async fn call(&mut self) -> Result<Duration, String> {
        let sent = Instant::now();
        self.client
            .get_new_application(GetNewApplicationRequestProto {})
            .await
            .map_err(|status| format!("{:?}: {}", status.code(), status.message()))?;
        Ok(sent.elapsed())
    }
}

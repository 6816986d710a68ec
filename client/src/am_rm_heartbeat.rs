//! YARN's `AMRMClientAsync`: an [`AmRmClient`] heartbeating in its own task, reporting what
//! each heartbeat brings as events.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;
use yarn_proto::pb;

use crate::{AmRmClient, Error, NmTokenCache};

/// How many commands may wait for the heartbeat task before senders wait in turn.
const COMMAND_CAPACITY: usize = 256;

/// What a heartbeat brought, in the order it happened.
#[derive(Debug)]
pub enum AmRmEvent {
    /// Containers newly allocated (each container once; its NM token is already in the
    /// [`NmTokenCache`]).
    ContainersAllocated(Vec<pb::ContainerProto>),
    /// Containers newly completed, each once.
    ContainersCompleted(Vec<pb::ContainerStatusProto>),
    /// The RM told the ApplicationMaster to shut down.
    ShutdownRequested,
    /// A heartbeat failed; heartbeats go on at the next interval.
    Error(Error),
}

/// Changes for the client inside the task.
#[derive(Debug)]
enum Command {
    AddContainerRequest(pb::ResourceRequestProto),
    RemoveContainerRequest(pb::ResourceRequestProto),
    ReleaseAssignedContainer(pb::ContainerIdProto),
    UpdateBlacklist {
        additions: Vec<String>,
        removals: Vec<String>,
    },
    SetProgress(f32),
}

/// A registered [`AmRmClient`] calling allocate every `interval` in its own task.
///
/// Changes (asks, releases, blacklist, progress) travel to the task through a bounded command
/// queue of 256 and are applied between heartbeats, so each goes out with the next one. Events
/// leave through an unbounded channel: the task must never stop heartbeating because the
/// ApplicationMaster is slow to read, or the RM would expire the attempt; at most three
/// events per heartbeat accumulate while nobody reads.
///
/// Dropping this value aborts the task (between or during heartbeats) without unregistering;
/// [`finish`](Self::finish) stops it cleanly and unregisters.
#[derive(Debug)]
pub struct AmRmHeartbeat {
    commands: mpsc::Sender<Command>,
    task: JoinSet<AmRmClient>,
    nm_tokens: NmTokenCache,
}

impl AmRmHeartbeat {
    /// Starts heartbeating with `client` (already registered) every `interval`, the first
    /// heartbeat at once, and returns the handle with the receiver of its events. Must be
    /// called within a tokio runtime.
    pub fn start(
        client: AmRmClient,
        interval: Duration,
    ) -> (Self, mpsc::UnboundedReceiver<AmRmEvent>) {
        let (commands, command_receiver) = mpsc::channel(COMMAND_CAPACITY);
        let (events, event_receiver) = mpsc::unbounded_channel();
        let nm_tokens = client.nm_tokens();
        let mut task = JoinSet::new();
        task.spawn(
            HeartbeatLoop {
                client,
                interval,
                progress: 0.0,
                commands: command_receiver,
                events,
            }
            .run(),
        );
        (
            Self {
                commands,
                task,
                nm_tokens,
            },
            event_receiver,
        )
    }

    /// The NM tokens the heartbeats received, shared.
    pub fn nm_tokens(&self) -> NmTokenCache {
        self.nm_tokens.clone()
    }

    /// [`AmRmClient::add_container_request`] with the next heartbeat.
    ///
    /// # Errors
    ///
    /// [`Error::HeartbeatStopped`] when the task is gone.
    pub async fn add_container_request(
        &self,
        request: pb::ResourceRequestProto,
    ) -> Result<(), Error> {
        self.send(Command::AddContainerRequest(request)).await
    }

    /// [`AmRmClient::remove_container_request`] with the next heartbeat.
    ///
    /// # Errors
    ///
    /// [`Error::HeartbeatStopped`] when the task is gone.
    pub async fn remove_container_request(
        &self,
        request: pb::ResourceRequestProto,
    ) -> Result<(), Error> {
        self.send(Command::RemoveContainerRequest(request)).await
    }

    /// [`AmRmClient::release_assigned_container`] with the next heartbeat.
    ///
    /// # Errors
    ///
    /// [`Error::HeartbeatStopped`] when the task is gone.
    pub async fn release_assigned_container(
        &self,
        container_id: pb::ContainerIdProto,
    ) -> Result<(), Error> {
        self.send(Command::ReleaseAssignedContainer(container_id))
            .await
    }

    /// [`AmRmClient::update_blacklist`] with the next heartbeat.
    ///
    /// # Errors
    ///
    /// [`Error::HeartbeatStopped`] when the task is gone.
    pub async fn update_blacklist(
        &self,
        additions: Vec<String>,
        removals: Vec<String>,
    ) -> Result<(), Error> {
        self.send(Command::UpdateBlacklist {
            additions,
            removals,
        })
        .await
    }

    /// The progress the following heartbeats report (YARN's `getProgress`), clamped into
    /// `[0, 1]`.
    ///
    /// # Errors
    ///
    /// [`Error::HeartbeatStopped`] when the task is gone.
    pub async fn set_progress(&self, progress: f32) -> Result<(), Error> {
        self.send(Command::SetProgress(progress)).await
    }

    /// Stops the heartbeats once the one in progress, if any, has ended, then unregisters with
    /// [`AmRmClient::finish`]. Changes still queued are applied to the client but not sent.
    ///
    /// # Errors
    ///
    /// [`Error::HeartbeatStopped`] when the task is gone, otherwise those of
    /// [`AmRmClient::finish`]. A panic of the task is resumed in the caller.
    pub async fn finish(
        self,
        status: pb::FinalApplicationStatusProto,
        diagnostics: &str,
        tracking_url: &str,
    ) -> Result<(), Error> {
        let Self {
            commands, mut task, ..
        } = self;
        // The task drains the commands already queued, then sees the queue closed and stops.
        drop(commands);
        let mut client = match task.join_next().await {
            Some(Ok(client)) => client,
            Some(Err(err)) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Some(Err(_)) | None => return Err(Error::HeartbeatStopped),
        };
        client.finish(status, diagnostics, tracking_url).await
    }

    async fn send(&self, command: Command) -> Result<(), Error> {
        self.commands
            .send(command)
            .await
            .map_err(|_| Error::HeartbeatStopped)
    }
}

/// The heartbeat task. It runs until the command queue is closed and drained, and hands the
/// client back.
struct HeartbeatLoop {
    client: AmRmClient,
    interval: Duration,
    progress: f32,
    commands: mpsc::Receiver<Command>,
    events: mpsc::UnboundedSender<AmRmEvent>,
}

impl HeartbeatLoop {
    /// Applies commands as they come and heartbeats at every tick; a heartbeat in progress is
    /// finished before the next command is read.
    async fn run(mut self) -> AmRmClient {
        let mut ticks = tokio::time::interval(self.interval);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                // Commands first, so a change made before a tick goes out with it.
                biased;
                command = self.commands.recv() => match command {
                    Some(command) => self.apply(command),
                    None => return self.client,
                },
                _ = ticks.tick() => self.heartbeat().await,
            }
        }
    }

    fn apply(&mut self, command: Command) {
        match command {
            Command::AddContainerRequest(request) => self.client.add_container_request(request),
            Command::RemoveContainerRequest(request) => {
                self.client.remove_container_request(&request);
            }
            Command::ReleaseAssignedContainer(container_id) => {
                self.client.release_assigned_container(container_id);
            }
            Command::UpdateBlacklist {
                additions,
                removals,
            } => self.client.update_blacklist(additions, removals),
            Command::SetProgress(progress) => self.progress = progress,
        }
    }

    async fn heartbeat(&mut self) {
        // A send fails only when the ApplicationMaster dropped the receiver; heartbeats go on
        // regardless, so the attempt stays alive until finish.
        match self.client.allocate(self.progress).await {
            Ok(outcome) => {
                if !outcome.allocated.is_empty() {
                    let _ = self
                        .events
                        .send(AmRmEvent::ContainersAllocated(outcome.allocated));
                }
                if !outcome.completed.is_empty() {
                    let _ = self
                        .events
                        .send(AmRmEvent::ContainersCompleted(outcome.completed));
                }
                if outcome.shutdown_requested {
                    let _ = self.events.send(AmRmEvent::ShutdownRequested);
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "AMRM heartbeat failed");
                let _ = self.events.send(AmRmEvent::Error(err));
            }
        }
    }
}

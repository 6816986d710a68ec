//! [`AmProcesses`]: the ApplicationMasters running in a simulated cluster, each killable.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;
use yarn_nodemanager::executor::ContainerExit;

/// The exit code of a process killed by SIGKILL, as the NodeManager reports it.
const KILLED_EXIT_CODE: i32 = 137;

/// Each node's running ApplicationMasters, by container id, each with the switch that kills
/// its process.
type Running = BTreeMap<String, BTreeMap<String, Arc<Notify>>>;

/// The ApplicationMasters running on each node, by container id, each with the switch that
/// kills its process. Clones share the registry; it outlives the nodes, as the harness does.
#[derive(Clone, Debug, Default)]
pub(crate) struct AmProcesses {
    inner: Arc<Mutex<Running>>,
}

impl AmProcesses {
    fn lock(&self) -> MutexGuard<'_, Running> {
        // Entries are inserted and removed whole, so a poisoned registry is consistent.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `am`, the ApplicationMaster of container `container_id` on `node`, as a process that
    /// [`kill_one`](Self::kill_one) can kill: it then exits at once with SIGKILL's exit code,
    /// and everything it was doing (its calls, the tasks it spawned in its own sets) is
    /// dropped. Registered at once, so a kill that comes before the process first runs still
    /// finds it.
    pub(crate) fn run(
        &self,
        node: &str,
        container_id: &str,
        am: impl Future<Output = ContainerExit> + Send + 'static,
    ) -> impl Future<Output = ContainerExit> + Send + 'static {
        let kill = Arc::new(Notify::new());
        self.lock()
            .entry(node.to_owned())
            .or_default()
            .insert(container_id.to_owned(), Arc::clone(&kill));
        let registered = Registered {
            processes: self.clone(),
            node: node.to_owned(),
            container_id: container_id.to_owned(),
        };
        async move {
            // Forgotten however the process ends: exiting, killed here, or dropped when its
            // NodeManager stops the container or goes down.
            let _registered = registered;
            tokio::select! {
                exit = am => exit,
                () = kill.notified() => ContainerExit {
                    exit_code: KILLED_EXIT_CODE,
                    diagnostics: "the ApplicationMaster process was killed (a simulated crash)"
                        .to_owned(),
                },
            }
        }
    }

    /// Kills the ApplicationMaster with the lowest container id running on `node` or, if
    /// none runs there, on the next node in name order (wrapping round) that runs one; returns
    /// the node and the container id, or `None` when no ApplicationMaster runs anywhere.
    pub(crate) fn kill_one(&self, node: &str) -> Option<(String, String)> {
        let mut running = self.lock();
        let target = running
            .range(node.to_owned()..)
            .chain(running.range(..node.to_owned()))
            .find(|(_, ams)| !ams.is_empty())
            .map(|(name, _)| name.clone())?;
        let (container_id, kill) = running.get_mut(&target)?.pop_first()?;
        // Stored if the process is not waiting yet, so it dies when it next runs.
        kill.notify_one();
        Some((target, container_id))
    }

    /// Forgets every ApplicationMaster of `node`, whose machine went down with them.
    pub(crate) fn forget_node(&self, node: &str) {
        self.lock().remove(node);
    }
}

/// An ApplicationMaster's entry in [`AmProcesses`], removed when its process ends.
struct Registered {
    processes: AmProcesses,
    node: String,
    container_id: String,
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(running) = self.processes.lock().get_mut(&self.node) {
            running.remove(&self.container_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit(exit_code: i32) -> ContainerExit {
        ContainerExit {
            exit_code,
            diagnostics: String::new(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_killed_am_exits_as_killed_and_only_one_dies() {
        let processes = AmProcesses::default();
        let first = processes.run("nm1", "c1", std::future::pending());
        let second = processes.run("nm1", "c2", async { exit(0) });
        let killed = |node: &str| processes.kill_one(node).map(|(n, c)| format!("{n}/{c}"));
        assert_eq!(
            killed("nm2").as_deref(),
            Some("nm1/c1"),
            "the next node that runs one"
        );
        assert_eq!(first.await.exit_code, KILLED_EXIT_CODE);
        assert_eq!(second.await.exit_code, 0);
        assert_eq!(killed("nm1"), None, "both ended");
        let third = processes.run("nm3", "c3", std::future::pending());
        let fourth = processes.run("nm1", "c4", std::future::pending());
        assert_eq!(killed("nm2").as_deref(), Some("nm3/c3"));
        drop(fourth);
        assert_eq!(killed("nm1"), None, "a stopped container's process is gone");
        let fifth = processes.run("nm2", "c5", std::future::pending());
        processes.forget_node("nm2");
        assert_eq!(killed("nm1"), None, "its machine went down");
        drop((third, fifth));
    }
}

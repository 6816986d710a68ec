//! Processes a cluster's daemons left behind: containers outlive a NodeManager that stops (so
//! that a restarted one can recover them), so after the daemons stop, whatever still works
//! inside the cluster's directory is the harness's to end.

use std::path::Path;

use yarn_nodemanager::executor::Signal;

/// SIGKILLs every process (of this user) whose working directory lies under `dir`, except this
/// one, and returns their pids. Container processes run in their NodeManager's directories, so
/// after the cluster stopped these are the ApplicationMasters and tasks nobody will wait for.
pub fn kill_leftovers(dir: &Path) -> Vec<u32> {
    let own = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut killed = Vec::new();
    for pid in entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != own)
    {
        let inside =
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir));
        if inside && Signal::Kill.send(pid).is_ok() {
            killed.push(pid);
        }
    }
    killed
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn processes_working_inside_the_directory_are_killed_and_others_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let inside_dir = dir.path().join("nm1/local/container_1");
        std::fs::create_dir_all(&inside_dir).unwrap();
        let outside_dir = tempfile::tempdir().unwrap();
        let mut inside = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(&inside_dir)
            .spawn()
            .unwrap();
        let mut outside = std::process::Command::new("sleep")
            .arg("30")
            .current_dir(outside_dir.path())
            .spawn()
            .unwrap();

        let killed = kill_leftovers(dir.path());
        assert_eq!(killed, [inside.id()]);
        let deadline = Instant::now() + Duration::from_secs(10);
        while inside.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the leftover is still alive");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(outside.try_wait().unwrap().is_none());
        outside.kill().unwrap();
        outside.wait().unwrap();
    }
}

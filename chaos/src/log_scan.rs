//! Finding panics in the logs a run leaves behind.

use std::path::{Path, PathBuf};
use yarn_minicluster::{ClusterManifest, DaemonRole};

use crate::observations::LogPanic;

/// What Rust's default panic hook writes.
const PANIC_MARK: &str = "panicked at";

/// How deep container log directories are searched (`<app>/<container>/<file>`).
const CONTAINER_LOG_DEPTH: usize = 4;

/// The panics in `files`, in file order then line order. Unreadable files are skipped (a log
/// that was never written has nothing to report).
pub fn scan(files: &[PathBuf]) -> Vec<LogPanic> {
    files
        .iter()
        .filter_map(|file| {
            let bytes = std::fs::read(file).ok()?;
            Some(panics_in(&String::from_utf8_lossy(&bytes), file))
        })
        .flatten()
        .collect()
}

/// The lines of `text` (the content of `file`) that report a panic.
pub fn panics_in(text: &str, file: &Path) -> Vec<LogPanic> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.contains(PANIC_MARK))
        .map(|(index, line)| LogPanic {
            file: file.to_owned(),
            line: index + 1,
            text: line.trim().to_owned(),
        })
        .collect()
}

/// Every log a run's processes write: each daemon's log, every other `*.log` in the logs
/// directory (the spare ResourceManager's, which the manifest does not list), and the `stderr`
/// and `AppMaster.stderr` of every container under each NodeManager's log directory.
pub fn log_files(manifest: &ClusterManifest) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = manifest
        .daemons
        .iter()
        .map(|daemon| manifest.log_file(&daemon.id))
        .collect();
    if let Ok(entries) = std::fs::read_dir(&manifest.logs_dir) {
        let mut others: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "log"))
            .filter(|path| !files.contains(path))
            .collect();
        others.sort();
        files.extend(others);
    }
    for daemon in manifest
        .daemons
        .iter()
        .filter(|daemon| daemon.role == DaemonRole::NodeManager)
    {
        let dir = manifest.base_dir.join(&daemon.id).join("container-logs");
        collect_stderr(&dir, CONTAINER_LOG_DEPTH, &mut files);
    }
    files
}

fn collect_stderr(dir: &Path, depth: usize, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if depth > 0 {
                collect_stderr(&path, depth - 1, files);
            }
        } else if path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name == "stderr" || name.ends_with(".stderr"))
        {
            files.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_lines_are_found_with_their_line_numbers() {
        let text = "starting\nthread 'main' panicked at src/x.rs:3:9:\nboom\nstill fine\n";
        let panics = panics_in(text, Path::new("/l/rm1.log"));
        assert_eq!(panics.len(), 1);
        assert_eq!(panics[0].line, 2);
        assert!(panics[0].text.starts_with("thread 'main' panicked at"));
        assert!(panics_in("all quiet\n", Path::new("/l/nm1.log")).is_empty());
    }

    #[test]
    fn logs_the_manifest_does_not_list_are_scanned_too() {
        let dir = tempfile::tempdir().unwrap();
        let logs_dir = dir.path().join("logs");
        std::fs::create_dir_all(&logs_dir).unwrap();
        for name in ["rm1.log", "rm4.log", "notes.txt"] {
            std::fs::write(logs_dir.join(name), "thread 'x' panicked at a.rs:1:1:\n").unwrap();
        }
        let manifest = ClusterManifest {
            format: 1,
            base_dir: dir.path().to_owned(),
            pki_dir: dir.path().join("pki"),
            client_conf_dir: dir.path().join("client/conf"),
            logs_dir: logs_dir.clone(),
            daemons: vec![yarn_minicluster::ManifestDaemon {
                role: DaemonRole::ResourceManager,
                id: "rm1".to_owned(),
                conf_dir: dir.path().join("rm1/conf"),
            }],
            proxy_routes: Vec::new(),
        };
        let files = log_files(&manifest);
        assert_eq!(files, [logs_dir.join("rm1.log"), logs_dir.join("rm4.log")]);
        assert_eq!(scan(&files).len(), 2);
    }

    #[test]
    fn container_stderr_files_are_collected_and_others_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let container = dir.path().join("app_1/container_1");
        std::fs::create_dir_all(&container).unwrap();
        for name in ["stderr", "AppMaster.stderr", "stdout"] {
            std::fs::write(container.join(name), "thread 'x' panicked at a.rs:1:1:\n").unwrap();
        }
        let mut files = Vec::new();
        collect_stderr(dir.path(), 4, &mut files);
        let names: Vec<_> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["AppMaster.stderr", "stderr"]);
        assert_eq!(scan(&files).len(), 2);
    }
}

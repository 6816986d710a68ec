//! Reading and atomically replacing the minicluster's JSON files.

use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Parses the JSON file at `path`; errors name the file and, for bad JSON, line and column.
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Replaces `path` with `value` as pretty JSON so a concurrent reader sees the old file or the
/// new one, never a torn write: the text goes to a temporary file beside it, which is then
/// renamed over `path` (rename is atomic within one directory).
pub(crate) fn write_atomically<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .with_context(|| format!("serializing {}", path.display()))?;
    text.push('\n');
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp.{}", std::process::id()));
    let temporary = Path::new(&temporary);
    std::fs::write(temporary, text).with_context(|| format!("writing {}", temporary.display()))?;
    std::fs::rename(temporary, path)
        .with_context(|| format!("renaming {} to {}", temporary.display(), path.display()))
}

//! `minicluster init`: lays out a new cluster directory.

use std::path::Path;

use anyhow::Context;

use crate::capacity_scheduler::{CAPACITY_SCHEDULER_XML, capacity_scheduler_xml};
use crate::cluster_manifest::ClusterManifest;
use crate::{ClusterLayout, LayoutOptions};

/// Creates a cluster of `rms` ResourceManagers and `nms` NodeManagers in `base_dir`: the
/// [`ClusterLayout`] (PKI, one configuration directory per daemon with free loopback ports, RM
/// storage, client configuration), a `capacity-scheduler.xml` with the single queue
/// `root.default` beside every `yarn-site.xml`, an empty `logs/`, and the manifest
/// `minicluster.json` that `minicluster start` reads. Returns the manifest.
///
/// `base_dir` is made absolute first, because the configuration files name paths inside it
/// and the daemons may run from another working directory.
///
/// # Errors
///
/// When `rms` is 0, when `base_dir` exists and is not an empty directory (nothing is written
/// then), or when a directory, certificate or file cannot be written (the message names it).
pub fn init(base_dir: &Path, rms: usize, nms: usize) -> anyhow::Result<ClusterManifest> {
    init_with(base_dir, rms, nms, &LayoutOptions::default())
}

/// As [`init`], laying the cluster out with `options` (see
/// [`ClusterLayout::create_with`]); the manifest records the proxy routes of a proxied layout.
///
/// # Errors
///
/// As [`init`].
pub fn init_with(
    base_dir: &Path,
    rms: usize,
    nms: usize,
    options: &LayoutOptions,
) -> anyhow::Result<ClusterManifest> {
    anyhow::ensure!(
        rms > 0,
        "a minicluster needs at least one ResourceManager (--rms 1 or more)"
    );
    if base_dir.exists() {
        anyhow::ensure!(
            base_dir.is_dir(),
            "{} exists and is not a directory; minicluster init needs a new or empty directory",
            base_dir.display()
        );
        let mut entries = std::fs::read_dir(base_dir)
            .with_context(|| format!("reading {}", base_dir.display()))?;
        anyhow::ensure!(
            entries.next().is_none(),
            "{} is not empty; minicluster init needs a new or empty directory, so it never \
             mixes a new cluster's certificates and ports with what is there",
            base_dir.display()
        );
    }
    std::fs::create_dir_all(base_dir)
        .with_context(|| format!("creating {}", base_dir.display()))?;
    let base = base_dir
        .canonicalize()
        .with_context(|| format!("resolving {}", base_dir.display()))?;
    let (layout, proxy_routes) = ClusterLayout::create_with(&base, rms, nms, options)?;
    let xml = capacity_scheduler_xml();
    let conf_dirs = layout
        .rms
        .iter()
        .map(|rm| &rm.conf_dir)
        .chain(layout.nms.iter().map(|nm| &nm.conf_dir))
        .chain([&layout.client_conf_dir]);
    for dir in conf_dirs {
        let file = dir.join(CAPACITY_SCHEDULER_XML);
        std::fs::write(&file, &xml).with_context(|| format!("writing {}", file.display()))?;
    }
    let mut manifest = ClusterManifest::from_layout(&layout);
    manifest.proxy_routes = proxy_routes;
    std::fs::create_dir_all(&manifest.logs_dir)
        .with_context(|| format!("creating {}", manifest.logs_dir.display()))?;
    manifest.write()?;
    Ok(manifest)
}

//! Directories, certificates and configuration for a local cluster.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};

use anyhow::Context;
use yarn_conf::{keys, writer};
use yarn_security::pki::{self, LeafSpec, PkiOptions};
use yarn_security::{Role, TlsFiles};

use crate::{LayoutOptions, ProxyRoute};

/// The user whose certificate the harness's clients present.
pub const HARNESS_USER: &str = "yarn-admin";

/// The host every NodeManager of a local cluster runs on. A NodeManager certificate is named by
/// its host and the RM lets it speak only for nodes on that host, so the local NodeManagers
/// share one certificate for this host and differ by port.
pub const NM_HOST: &str = "127.0.0.1";

/// One ResourceManager of a laid-out cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RmLayout {
    /// Its rm id (`rm1`, `rm2`, ...).
    pub rm_id: String,
    /// Its configuration directory (`YARN_CONF_DIR`).
    pub conf_dir: PathBuf,
    /// Its Raft storage directory.
    pub storage_dir: PathBuf,
}

/// One NodeManager of a laid-out cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NmLayout {
    /// Its daemon name (`nm1`, `nm2`, ...); its certificate is the shared one of [`NM_HOST`].
    pub name: String,
    /// Its configuration directory.
    pub conf_dir: PathBuf,
}

/// A local cluster on 127.0.0.1: every RM and NM gets its own configuration directory with
/// ports no other daemon of the layout uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterLayout {
    /// The directory everything lives under.
    pub base: PathBuf,
    /// The PKI directory.
    pub pki_dir: PathBuf,
    /// The ResourceManagers, in `rm-ids` order.
    pub rms: Vec<RmLayout>,
    /// The NodeManagers.
    pub nms: Vec<NmLayout>,
    /// Configuration for CLI calls as [`HARNESS_USER`].
    pub client_conf_dir: PathBuf,
}

impl ClusterLayout {
    /// Creates the layout under `base` (which must be empty or absent) for `rms` RMs (at least
    /// one) and `nms` NMs.
    ///
    /// Ports come from the kernel (bind to port 0, held until the layout is written, then
    /// released), so they are distinct and free when chosen; another process could still take one
    /// before the daemon binds it, which a launcher reports as a bind error naming the port.
    ///
    /// # Errors
    ///
    /// When `rms` is 0, `base` is not empty, or a directory, certificate or file cannot be
    /// written; the message names what and where.
    pub fn create(base: &Path, rms: usize, nms: usize) -> anyhow::Result<Self> {
        let (layout, _) = Self::create_with(base, rms, nms, &LayoutOptions::default())?;
        Ok(layout)
    }

    /// As [`create`](Self::create), with `options`: its extra properties go into every
    /// `yarn-site.xml`, and when it asks for proxies, every ResourceManager endpoint but the web
    /// address gets a second free port, a front, that the configuration of every *other*
    /// daemon names instead of the real one. Each ResourceManager binds its real ports and sees
    /// its peers' fronts; NodeManagers and the client configuration see only fronts. So every
    /// RPC between daemons, and from clients, crosses a front, and whoever listens there (a
    /// fault-injecting proxy) decides what gets through. Returns the layout and one
    /// [`ProxyRoute`] per front (none without proxies).
    ///
    /// Every daemon's configuration names each ResourceManager endpoint at one address only,
    /// the same for every viewer but the owner, so the leader hints a follower hands out lead
    /// clients to the fronts too.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub fn create_with(
        base: &Path,
        rms: usize,
        nms: usize,
        options: &LayoutOptions,
    ) -> anyhow::Result<(Self, Vec<ProxyRoute>)> {
        anyhow::ensure!(rms > 0, "a cluster needs at least one ResourceManager");
        if base.exists() {
            let mut entries =
                std::fs::read_dir(base).with_context(|| format!("reading {}", base.display()))?;
            anyhow::ensure!(
                entries.next().is_none(),
                "{} is not empty; a cluster layout needs a fresh directory",
                base.display()
            );
        }
        let mut ports = PortReservations::default();
        let rm_ids: Vec<String> = (1..=rms).map(|i| format!("rm{i}")).collect();
        let nm_names: Vec<String> = (1..=nms).map(|i| format!("nm{i}")).collect();
        let pki_dir = base.join("pki");
        let leaves: Vec<LeafSpec> = rm_ids
            .iter()
            .map(|id| LeafSpec::new(Role::ResourceManager, id))
            .chain((nms > 0).then(|| LeafSpec::new(Role::NodeManager, NM_HOST)))
            .chain([LeafSpec::new(Role::User, HARNESS_USER)])
            .collect();
        pki::init(
            &pki_dir,
            &leaves,
            &PkiOptions::starting_at(time::OffsetDateTime::now_utc()),
        )
        .context("creating the cluster PKI")?;

        let mut shared: Vec<(String, String)> = vec![
            (keys::RM_HA_ENABLED.name.to_string(), "true".to_owned()),
            (keys::RM_HA_IDS.name.to_string(), rm_ids.join(",")),
            // The demo and the drills run OPPORTUNISTIC work as such: placed by the RM on the
            // least-loaded nodes, queued at the NodeManagers.
            (
                keys::RM_OPPORTUNISTIC_CONTAINER_ALLOCATION_ENABLED
                    .name
                    .to_string(),
                "true".to_owned(),
            ),
            (
                keys::NM_OPPORTUNISTIC_CONTAINERS_MAX_QUEUE_LENGTH
                    .name
                    .to_string(),
                "10".to_owned(),
            ),
            // Every AM talks to its NodeManager's AMRMProxy, whose distributed scheduler places
            // OPPORTUNISTIC containers without an RM round trip (GUARANTEED asks still go to
            // the RM); AMs that reach the RM directly still get central placement above.
            (keys::AMRM_PROXY_ENABLED.name.to_string(), "true".to_owned()),
            (
                keys::DIST_SCHEDULING_ENABLED.name.to_string(),
                "true".to_owned(),
            ),
        ];
        shared.extend(options.site.iter().cloned());
        let endpoints = RmEndpointPorts::reserve(&rm_ids, options.proxied, &mut ports)?;

        let mut layout = Self {
            base: base.to_owned(),
            pki_dir: pki_dir.clone(),
            rms: Vec::new(),
            nms: Vec::new(),
            client_conf_dir: base.join("client/conf"),
        };
        for id in &rm_ids {
            let dir = base.join(id);
            let storage_dir = dir.join("raft");
            let own = [
                (keys::RM_HA_ID.name.to_string(), id.clone()),
                (
                    keys::RM_HA_RAFT_STORAGE_DIR.name.to_string(),
                    path(&storage_dir),
                ),
            ];
            let tls = TlsFiles::in_pki_dir(&pki_dir, Role::ResourceManager, id);
            write_site(
                &dir.join("conf"),
                &shared,
                endpoints
                    .seen_by(Some(id))
                    .chain(own)
                    .chain(tls_properties(&tls)),
            )?;
            layout.rms.push(RmLayout {
                rm_id: id.clone(),
                conf_dir: dir.join("conf"),
                storage_dir,
            });
        }
        for name in &nm_names {
            let dir = base.join(name);
            let own = [
                (keys::NM_HOSTNAME.name.to_string(), NM_HOST.to_owned()),
                (keys::NM_ADDRESS.name.to_string(), ports.next_address()?),
                (
                    keys::NM_WEBAPP_ADDRESS.name.to_string(),
                    ports.next_address()?,
                ),
                // Its own port even while the proxy is off: several NMs share the host, and a
                // layout that turns the proxy on must not make them collide on 8049.
                (
                    keys::AMRM_PROXY_ADDRESS.name.to_string(),
                    ports.next_address()?,
                ),
                (
                    keys::NM_LOCAL_DIRS.name.to_string(),
                    path(&dir.join("local")),
                ),
                (
                    keys::NM_RECOVERY_DIR.name.to_string(),
                    path(&dir.join("recovery")),
                ),
                (
                    keys::NM_LOG_DIRS.name.to_string(),
                    path(&dir.join("container-logs")),
                ),
            ];
            let tls = TlsFiles::in_pki_dir(&pki_dir, Role::NodeManager, NM_HOST);
            write_site(
                &dir.join("conf"),
                &shared,
                endpoints
                    .seen_by(None)
                    .chain(own)
                    .chain(tls_properties(&tls)),
            )?;
            layout.nms.push(NmLayout {
                name: name.clone(),
                conf_dir: dir.join("conf"),
            });
        }
        let tls = TlsFiles::in_pki_dir(&pki_dir, Role::User, HARNESS_USER);
        // NMs re-register within a heartbeat of a failover; Hadoop's 10 s pause before asking
        // a not-yet-ready node again would only stretch every drill.
        let nm_retry = (
            keys::CLIENT_NODEMANAGER_CONNECT_RETRY_INTERVAL_MS
                .name
                .to_string(),
            "200".to_owned(),
        );
        write_site(
            &layout.client_conf_dir,
            &shared,
            endpoints
                .seen_by(None)
                .chain(tls_properties(&tls))
                .chain([nm_retry]),
        )?;
        Ok((layout, endpoints.routes()))
    }
}

/// The ports of every ResourceManager endpoint: the real one each binds and, with proxies, the
/// front the other daemons are told about.
struct RmEndpointPorts {
    /// (rm id, endpoint key index in [`keys::RM_ENDPOINT_KEYS`], real address, front address).
    endpoints: Vec<(String, usize, String, Option<String>)>,
}

/// The [`keys::RM_ENDPOINT_KEYS`] entry of the web address, which is never proxied: no daemon
/// calls another's web address.
const WEBAPP_ENDPOINT: usize = 4;

impl RmEndpointPorts {
    fn reserve(
        rm_ids: &[String],
        proxied: bool,
        ports: &mut PortReservations,
    ) -> anyhow::Result<Self> {
        let mut endpoints = Vec::new();
        for id in rm_ids {
            for index in 0..keys::RM_ENDPOINT_KEYS.len() {
                let real = ports.next_address()?;
                let front = if proxied && index != WEBAPP_ENDPOINT {
                    Some(ports.next_address()?)
                } else {
                    None
                };
                endpoints.push((id.clone(), index, real, front));
            }
        }
        Ok(Self { endpoints })
    }

    /// Every endpoint key as `viewer` (an rm id; `None` for NodeManagers and clients) sees it:
    /// its own endpoints at their real addresses, every other at its front when it has one.
    fn seen_by<'a>(
        &'a self,
        viewer: Option<&'a str>,
    ) -> impl Iterator<Item = (String, String)> + 'a {
        self.endpoints.iter().map(move |(id, index, real, front)| {
            let address = match front {
                Some(front) if viewer != Some(id.as_str()) => front,
                _ => real,
            };
            (
                keys::RM_ENDPOINT_KEYS[*index].for_id(id).name.into_owned(),
                address.clone(),
            )
        })
    }

    fn routes(&self) -> Vec<ProxyRoute> {
        self.endpoints
            .iter()
            .filter_map(|(id, index, real, front)| {
                Some(ProxyRoute {
                    destination: id.clone(),
                    service: endpoint_service(*index).to_owned(),
                    listen: front.clone()?,
                    upstream: real.clone(),
                })
            })
            .collect()
    }
}

/// The service name of [`keys::RM_ENDPOINT_KEYS`] entry `index`, as `cluster.json` names it.
fn endpoint_service(index: usize) -> &'static str {
    [
        "client",
        "scheduler",
        "resource-tracker",
        "admin",
        "webapp",
        "raft",
    ][index]
}

fn tls_properties(files: &TlsFiles) -> [(String, String); 3] {
    [
        (keys::TLS_CA_CERT.name.to_string(), path(&files.ca_cert)),
        (keys::TLS_CERT.name.to_string(), path(&files.cert)),
        (keys::TLS_KEY.name.to_string(), path(&files.key)),
    ]
}

fn write_site(
    conf_dir: &Path,
    shared: &[(String, String)],
    own: impl IntoIterator<Item = (String, String)>,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(conf_dir)
        .with_context(|| format!("creating {}", conf_dir.display()))?;
    let own: Vec<(String, String)> = own.into_iter().collect();
    let xml = writer::site_xml(
        shared
            .iter()
            .chain(&own)
            .map(|(name, value)| (name.as_str(), value.as_str())),
    );
    let file = conf_dir.join(yarn_conf::SITE_RESOURCE);
    std::fs::write(&file, xml).with_context(|| format!("writing {}", file.display()))
}

/// Free loopback ports for one layout. Every port stays bound until the layout is written, so
/// the kernel cannot hand the same port out twice within one layout.
#[derive(Default)]
struct PortReservations {
    held: Vec<TcpListener>,
}

impl PortReservations {
    /// A `127.0.0.1:<port>` the kernel just reported free, distinct from every earlier one.
    fn next_address(&mut self) -> anyhow::Result<String> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .context("binding 127.0.0.1:0 to find a free port")?;
        let address = listener.local_addr()?.to_string();
        self.held.push(listener);
        Ok(address)
    }
}

fn path(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

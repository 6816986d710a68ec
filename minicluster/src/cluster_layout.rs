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
        let draft = LayoutDraft::write(base, rms, nms, options)?;
        let routes = draft.endpoints.routes();
        Ok((draft.layout, routes))
    }

    /// As [`create_with`](Self::create_with), plus a spare ResourceManager that is not a member
    /// of the cluster: its rm id is [`spare_rm_id`](Self::spare_rm_id)`(rms)`, it has its own
    /// certificate from the cluster CA, its own free ports (real ones only: nothing but the
    /// harness is told about them, so they get no fronts), its own configuration and storage
    /// directories under `<base>/<spare id>`, and a configuration whose `rm-ids` are the
    /// cluster's followed by its own id, naming every other ResourceManager as the other
    /// daemons see it (at its fronts with proxies).
    ///
    /// That is what a replica about to join needs (see `docs/operations.md`, "Adding and
    /// removing replicas"): since it is not the first configured rm id, it never initializes a
    /// group of its own and waits, on empty storage, until the leader adds it. The members'
    /// own configurations do not name it, as after a real `rmadmin -addToCluster`.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create).
    pub fn create_with_spare(
        base: &Path,
        rms: usize,
        nms: usize,
        options: &LayoutOptions,
    ) -> anyhow::Result<(Self, Vec<ProxyRoute>, RmLayout)> {
        let mut draft = LayoutDraft::write(base, rms, nms, options)?;
        let spare = draft.write_spare(options)?;
        let routes = draft.endpoints.routes();
        Ok((draft.layout, routes, spare))
    }

    /// The rm id of the spare ResourceManager of a cluster of `rms` ResourceManagers: the
    /// next one in the `rm<n>` sequence.
    pub fn spare_rm_id(rms: usize) -> String {
        format!("rm{}", rms + 1)
    }
}

/// A layout being written, with what adding a spare ResourceManager to it still needs: the
/// port reservations (held, so the spare's ports differ from every other) and the group's
/// endpoints.
struct LayoutDraft {
    layout: ClusterLayout,
    rm_ids: Vec<String>,
    endpoints: RmEndpointPorts,
    ports: PortReservations,
}

impl LayoutDraft {
    /// Writes the PKI and every daemon's and the client's configuration.
    fn write(base: &Path, rms: usize, nms: usize, options: &LayoutOptions) -> anyhow::Result<Self> {
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

        let shared = shared_properties(&rm_ids, options);
        let endpoints = RmEndpointPorts::reserve(&rm_ids, options.proxied, &mut ports)?;

        let mut layout = ClusterLayout {
            base: base.to_owned(),
            pki_dir: pki_dir.clone(),
            rms: Vec::new(),
            nms: Vec::new(),
            client_conf_dir: base.join("client/conf"),
        };
        for id in &rm_ids {
            let rm = rm_layout(base, id);
            let tls = TlsFiles::in_pki_dir(&pki_dir, Role::ResourceManager, id);
            write_site(
                &rm.conf_dir,
                &shared,
                endpoints
                    .seen_by(Some(id))
                    .chain(own_rm_properties(&rm))
                    .chain(tls_properties(&tls)),
            )?;
            layout.rms.push(rm);
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
        Ok(Self {
            layout,
            rm_ids,
            endpoints,
            ports,
        })
    }

    /// Issues the spare's certificate from the cluster CA and writes its configuration (see
    /// [`ClusterLayout::create_with_spare`]).
    fn write_spare(&mut self, options: &LayoutOptions) -> anyhow::Result<RmLayout> {
        let id = ClusterLayout::spare_rm_id(self.rm_ids.len());
        let pki_dir = &self.layout.pki_dir;
        pki::issue(
            pki_dir,
            &LeafSpec::new(Role::ResourceManager, &id),
            &PkiOptions::starting_at(time::OffsetDateTime::now_utc()),
        )
        .with_context(|| format!("issuing the certificate of the spare ResourceManager {id}"))?;
        let own_endpoints =
            RmEndpointPorts::reserve(std::slice::from_ref(&id), false, &mut self.ports)?;
        let mut rm_ids = self.rm_ids.clone();
        rm_ids.push(id.clone());
        let spare = rm_layout(&self.layout.base, &id);
        let tls = TlsFiles::in_pki_dir(pki_dir, Role::ResourceManager, &id);
        write_site(
            &spare.conf_dir,
            &shared_properties(&rm_ids, options),
            self.endpoints
                .seen_by(Some(&id))
                .chain(own_endpoints.seen_by(Some(&id)))
                .chain(own_rm_properties(&spare))
                .chain(tls_properties(&tls)),
        )?;
        Ok(spare)
    }
}

/// The directories of ResourceManager `id` under `base`.
fn rm_layout(base: &Path, id: &str) -> RmLayout {
    let dir = base.join(id);
    RmLayout {
        rm_id: id.to_owned(),
        conf_dir: dir.join("conf"),
        storage_dir: dir.join("raft"),
    }
}

/// The properties naming `rm` itself: its rm id and its storage directory.
fn own_rm_properties(rm: &RmLayout) -> [(String, String); 2] {
    [
        (keys::RM_HA_ID.name.to_string(), rm.rm_id.clone()),
        (
            keys::RM_HA_RAFT_STORAGE_DIR.name.to_string(),
            path(&rm.storage_dir),
        ),
    ]
}

/// The properties every configuration of a layout whose group is `rm_ids` shares: HA over
/// `rm_ids`, opportunistic containers, the AMRMProxy, then `options.site`, which replaces the
/// layout's properties of the same name.
fn shared_properties(rm_ids: &[String], options: &LayoutOptions) -> Vec<(String, String)> {
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
        // Administration belongs to the user the layout creates for it, not to every user
        // holding a certificate.
        (keys::YARN_ACL_ENABLE.name.to_string(), "true".to_owned()),
        (
            keys::YARN_ADMIN_ACL.name.to_string(),
            HARNESS_USER.to_owned(),
        ),
    ];
    // The caller's properties replace the layout's of the same name.
    shared.retain(|(name, _)| !options.site.iter().any(|(added, _)| added == name));
    shared.extend(options.site.iter().cloned());
    shared
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
/// no port is handed out twice within one layout.
///
/// Ports come from below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`): a
/// port from that range, once its daemon died, can be given to an outgoing connection, even to
/// a client's own retry dialing that port, which then connects to itself (TCP simultaneous
/// open) and holds the port, so the restarted daemon cannot bind it.
#[derive(Default)]
struct PortReservations {
    held: Vec<TcpListener>,
    /// Where the next search starts, an offset into [`LISTEN_PORTS`].
    cursor: Option<u32>,
}

/// The ports layouts take, when the kernel's ephemeral range starts above them.
const LISTEN_PORTS: std::ops::Range<u16> = 10_000..32_768;

impl PortReservations {
    /// A `127.0.0.1:<port>` free now, below the ephemeral range, distinct from every earlier one.
    fn next_address(&mut self) -> anyhow::Result<String> {
        let ports = listen_ports()?;
        let span = u32::from(ports.end - ports.start);
        // Layouts made at the same time (tests of several binaries) start far apart.
        let cursor = self.cursor.get_or_insert_with(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.subsec_nanos());
            (nanos ^ std::process::id().wrapping_mul(7919)) % span
        });
        for _ in 0..span {
            let port = ports.start + u16::try_from(*cursor % span).unwrap_or(0);
            *cursor = (*cursor + 1) % span;
            if let Ok(listener) = TcpListener::bind((Ipv4Addr::LOCALHOST, port)) {
                self.held.push(listener);
                return Ok(format!("127.0.0.1:{port}"));
            }
        }
        anyhow::bail!("no free port on 127.0.0.1 in {ports:?}")
    }
}

/// [`LISTEN_PORTS`], ending where the kernel's ephemeral range begins if it begins lower.
fn listen_ports() -> anyhow::Result<std::ops::Range<u16>> {
    const RANGE_FILE: &str = "/proc/sys/net/ipv4/ip_local_port_range";
    let ephemeral_start = std::fs::read_to_string(RANGE_FILE)
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(LISTEN_PORTS.end);
    let end = LISTEN_PORTS.end.min(ephemeral_start);
    anyhow::ensure!(
        end > LISTEN_PORTS.start + 1000,
        "{RANGE_FILE} starts the ephemeral ports at {ephemeral_start}, which leaves too few \
         below it for a local cluster's daemons; raise its first value above {}",
        LISTEN_PORTS.start + 1000
    );
    Ok(LISTEN_PORTS.start..end)
}

fn path(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use yarn_conf::{Configuration, RmHaConfig};
    use yarn_rm_ha::RmConfig;
    use yarn_security::{PeerIdentity, TlsConfig};

    use super::*;

    fn proxied() -> LayoutOptions {
        LayoutOptions {
            proxied: true,
            site: vec![("yarn.nodemanager.resource.memory-mb".into(), "2048".into())],
        }
    }

    fn rm_config(conf_dir: &Path) -> RmConfig {
        RmConfig::from_conf(&Configuration::load_dir(conf_dir).unwrap(), None).unwrap()
    }

    /// A daemon's port is never one the kernel may give an outgoing connection.
    #[test]
    fn layout_ports_are_distinct_and_below_the_ephemeral_range() {
        let ephemeral_start: u16 =
            std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap();
        let mut ports = PortReservations::default();
        let taken: BTreeSet<u16> = (0..50)
            .map(|_| {
                let address = ports.next_address().unwrap();
                address.rsplit(':').next().unwrap().parse().unwrap()
            })
            .collect();
        assert_eq!(taken.len(), 50, "{taken:?}");
        assert!(
            taken.iter().all(|port| *port < ephemeral_start),
            "{taken:?}"
        );
    }

    #[test]
    fn a_spare_joins_last_sees_its_peers_at_their_fronts_and_is_named_by_no_member() {
        let dir = tempfile::tempdir().unwrap();
        let (layout, routes, spare) =
            ClusterLayout::create_with_spare(&dir.path().join("c"), 3, 1, &proxied()).unwrap();
        assert_eq!(spare.rm_id, ClusterLayout::spare_rm_id(3));
        assert_eq!(spare.rm_id, "rm4");
        assert!(layout.rms.iter().all(|rm| rm.rm_id != spare.rm_id));

        let config = rm_config(&spare.conf_dir);
        assert_eq!(config.rm_id, "rm4");
        assert_eq!(config.storage_dir, spare.storage_dir);
        let ids: Vec<&str> = config
            .ha
            .members
            .iter()
            .map(|member| member.rm_id.as_str())
            .collect();
        // Not first, so it never initializes a group of its own.
        assert_eq!(ids, ["rm1", "rm2", "rm3", "rm4"]);
        for peer in ["rm1", "rm2", "rm3"] {
            let front = &routes
                .iter()
                .find(|route| route.destination == peer && route.service == "raft")
                .unwrap()
                .listen;
            assert_eq!(
                &config.ha.member(peer).unwrap().raft.to_string(),
                front,
                "{peer}"
            );
        }
        let tls = TlsConfig::from_conf(&Configuration::load_dir(&spare.conf_dir).unwrap());
        assert_eq!(
            tls.unwrap().identity(),
            Some(&PeerIdentity {
                role: Role::ResourceManager,
                name: "rm4".to_owned()
            })
        );

        // Its own ports are real ones nobody else uses.
        let mut used: BTreeSet<String> = routes
            .iter()
            .flat_map(|route| [route.listen.clone(), route.upstream.clone()])
            .collect();
        for rm in &layout.rms {
            let ha = RmHaConfig::from_conf(&Configuration::load_dir(&rm.conf_dir).unwrap());
            used.insert(ha.unwrap().member(&rm.rm_id).unwrap().webapp.to_string());
        }
        let own = config.ha.member("rm4").unwrap();
        for address in [
            &own.client,
            &own.scheduler,
            &own.resource_tracker,
            &own.admin,
            &own.webapp,
            &own.raft,
        ] {
            assert!(used.insert(address.to_string()), "{address} used twice");
        }
        assert!(
            !routes.iter().any(|route| route.destination == "rm4"),
            "the spare gets no fronts"
        );

        // The members' configurations are those of a layout without a spare.
        for rm in &layout.rms {
            let ids: Vec<String> = rm_config(&rm.conf_dir)
                .ha
                .members
                .into_iter()
                .map(|member| member.rm_id)
                .collect();
            assert_eq!(ids, ["rm1", "rm2", "rm3"]);
        }
        let client = std::fs::read_to_string(layout.client_conf_dir.join(yarn_conf::SITE_RESOURCE));
        assert!(!client.unwrap().contains("rm4"));
    }

    #[test]
    fn a_layout_without_a_spare_lays_out_none() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("c");
        let (layout, _) = ClusterLayout::create_with(&base, 3, 0, &proxied()).unwrap();
        assert_eq!(layout.rms.len(), 3);
        assert!(!base.join("rm4").exists());
        assert!(
            !TlsFiles::in_pki_dir(&layout.pki_dir, Role::ResourceManager, "rm4")
                .cert
                .exists()
        );
    }
}

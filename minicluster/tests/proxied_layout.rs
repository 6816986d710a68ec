//! A proxied layout: every ResourceManager binds its real ports and sees its peers' fronts;
//! NodeManagers and clients see only fronts; one route per front leads to the real port; the
//! manifest keeps the routes, and a plain layout has none.

use std::collections::BTreeSet;

use yarn_conf::{Configuration, RmHaConfig};
use yarn_minicluster::{ClusterLayout, ClusterManifest, LayoutOptions, ProxyRoute};
use yarn_rm_ha::RmConfig;

fn proxied() -> LayoutOptions {
    LayoutOptions {
        proxied: true,
        site: vec![("yarn.nodemanager.resource.memory-mb".into(), "2048".into())],
    }
}

fn route<'a>(routes: &'a [ProxyRoute], rm: &str, service: &str) -> &'a ProxyRoute {
    routes
        .iter()
        .find(|r| r.destination == rm && r.service == service)
        .unwrap_or_else(|| panic!("no {service} route to {rm}: {routes:#?}"))
}

#[test]
fn every_daemon_sees_its_peers_through_fronts_and_itself_directly() {
    let dir = tempfile::tempdir().unwrap();
    let (layout, routes) =
        ClusterLayout::create_with(&dir.path().join("c"), 3, 1, &proxied()).unwrap();
    // Five proxied services per ResourceManager; the web address is not proxied.
    assert_eq!(routes.len(), 15);
    let ports: BTreeSet<&str> = routes
        .iter()
        .flat_map(|r| [r.listen.as_str(), r.upstream.as_str()])
        .collect();
    assert_eq!(ports.len(), 30, "every front and real port is distinct");

    for rm in &layout.rms {
        let conf = Configuration::load_dir(&rm.conf_dir).unwrap();
        RmConfig::from_conf(&conf, None).unwrap();
        let ha = RmHaConfig::from_conf(&conf).unwrap();
        for member in &ha.members {
            let raft = route(&routes, &member.rm_id, "raft");
            let client = route(&routes, &member.rm_id, "client");
            let expected = if member.rm_id == rm.rm_id {
                (&raft.upstream, &client.upstream)
            } else {
                (&raft.listen, &client.listen)
            };
            assert_eq!(
                (&member.raft.to_string(), &member.client.to_string()),
                expected,
                "{} as seen by {}",
                member.rm_id,
                rm.rm_id
            );
        }
    }
    for conf_dir in [&layout.nms[0].conf_dir, &layout.client_conf_dir] {
        let conf = Configuration::load_dir(conf_dir).unwrap();
        assert_eq!(
            conf.get_raw("yarn.nodemanager.resource.memory-mb"),
            Some("2048")
        );
        for member in RmHaConfig::from_conf(&conf).unwrap().members {
            assert_eq!(
                member.resource_tracker.to_string(),
                route(&routes, &member.rm_id, "resource-tracker").listen
            );
            assert_eq!(
                member.scheduler.to_string(),
                route(&routes, &member.rm_id, "scheduler").listen
            );
        }
    }
}

#[test]
fn the_manifest_keeps_the_routes_and_the_daemons_bind_real_ports() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("c");
    let manifest = yarn_minicluster::init_with(&base, 3, 0, &proxied()).unwrap();
    assert_eq!(manifest.proxy_routes.len(), 15);
    assert_eq!(ClusterManifest::read(&base).unwrap(), manifest);
    for daemon in &manifest.daemons {
        let addresses = yarn_minicluster::daemon_addresses(daemon).unwrap();
        assert_eq!(
            addresses["admin"],
            route(&manifest.proxy_routes, &daemon.id, "admin").upstream
        );
    }

    let plain = yarn_minicluster::init(&dir.path().join("plain"), 3, 0).unwrap();
    assert!(plain.proxy_routes.is_empty());
    let text = std::fs::read_to_string(dir.path().join("plain/minicluster.json")).unwrap();
    assert!(
        !text.contains("proxy_routes"),
        "a plain manifest keeps its old form: {text}"
    );
}

//! The ResourceManager's web UI: Hadoop's pages under `/cluster`, drawn on the server from the
//! same operations and the same REST objects as the API, so a page and `/ws/v1/cluster/...`
//! never disagree.
//!
//! ```text
//!  browser ── GET /cluster/... ──▶ StandbyRedirect (a standby sends the browser to the leader)
//!                                     │
//!                     page handler ──▶ ClientOperations ──▶ AppInfo, NodeInfo, ...
//!                                     │                        (the REST objects)
//!                                     ▼
//!                     yarn_web::Page: one HTML document, no scripts
//! ```
//!
//! Pages: the overview (`/cluster`, `/cluster/cluster`), applications (`/cluster/apps`,
//! `/cluster/apps/{STATE}`), one application (`/cluster/app/{id}`), nodes (`/cluster/nodes`)
//! and the scheduler (`/cluster/scheduler`). Tables sort by a click on their headings
//! (`sort`, `order` in the query). A refused page is an HTML page with the refusal's status
//! and message ([`UiRefusal`]).

mod app_page;
mod apps_page;
mod nodes_page;
mod overview_page;
mod scheduler_page;
mod ui_refusal;

use axum::Router;
use axum::response::Redirect;
use axum::routing::get;
use maud::Markup;
use yarn_security::Caller;
use yarn_web::{NavLink, NavSection, Page, Sorting};

use super::RestApi;
use crate::operations::RmError;

/// The navigation column of every page, Hadoop's links.
const NAV: &[NavSection] = &[
    NavSection {
        heading: "Cluster",
        links: &[
            NavLink {
                text: "About",
                href: "/cluster/cluster",
            },
            NavLink {
                text: "Nodes",
                href: "/cluster/nodes",
            },
            NavLink {
                text: "Applications",
                href: "/cluster/apps",
            },
            NavLink {
                text: "Scheduler",
                href: "/cluster/scheduler",
            },
        ],
    },
    NavSection {
        heading: "Applications",
        links: &[
            NavLink {
                text: "NEW",
                href: "/cluster/apps/NEW",
            },
            NavLink {
                text: "SUBMITTED",
                href: "/cluster/apps/SUBMITTED",
            },
            NavLink {
                text: "ACCEPTED",
                href: "/cluster/apps/ACCEPTED",
            },
            NavLink {
                text: "RUNNING",
                href: "/cluster/apps/RUNNING",
            },
            NavLink {
                text: "FINISHED",
                href: "/cluster/apps/FINISHED",
            },
            NavLink {
                text: "FAILED",
                href: "/cluster/apps/FAILED",
            },
            NavLink {
                text: "KILLED",
                href: "/cluster/apps/KILLED",
            },
        ],
    },
    NavSection {
        heading: "Tools",
        links: &[
            NavLink {
                text: "Metrics",
                href: "/metrics",
            },
            NavLink {
                text: "REST: cluster info",
                href: "/ws/v1/cluster/info",
            },
        ],
    },
];

/// The UI's routes, for [`RestApi::router`].
pub(super) fn routes() -> Router<RestApi> {
    Router::new()
        .route("/", get(|| async { Redirect::to("/cluster") }))
        .route("/cluster", get(overview_page::overview))
        .route("/cluster/cluster", get(overview_page::overview))
        .route("/cluster/apps", get(apps_page::apps))
        .route("/cluster/apps/{state}", get(apps_page::apps_in_state))
        .route("/cluster/app/{app_id}", get(app_page::app))
        .route("/cluster/nodes", get(nodes_page::nodes))
        .route("/cluster/scheduler", get(scheduler_page::scheduler))
}

/// The page titled `title` showing `content`, in the frame of replica `api`, drawn for
/// `caller`.
fn render(api: &RestApi, caller: &Caller, title: &str, content: &Markup) -> Markup {
    let daemon = format!("ResourceManager {}", api.rm_id);
    Page {
        daemon: &daemon,
        caller: caller_name(caller),
        nav: NAV,
    }
    .render(title, content)
}

/// A table page's query split in two: the table's sorting (`sort` among the keys of
/// `columns`, `order`; `default` without them) and the rest, the page's filter as the REST
/// API reads it.
fn split_query(
    query: &[(String, String)],
    columns: &[(&'static str, &str)],
    default: Sorting,
) -> Result<(Sorting, Vec<(String, String)>), RmError> {
    let keys: Vec<&'static str> = columns.iter().map(|(key, _)| *key).collect();
    let sorting = Sorting::from_query(query, &keys, default)
        .map_err(|err| RmError::invalid(err.parameter, err.to_string()))?;
    let filter = query
        .iter()
        .filter(|(name, _)| name != "sort" && name != "order")
        .cloned()
        .collect();
    Ok((sorting, filter))
}

/// Who the page was drawn for, as its header shows it.
fn caller_name(caller: &Caller) -> &str {
    match caller {
        Caller::Peer(identity) => &identity.name,
        Caller::Anonymous => "dr.who",
    }
}

/// A time in ms since the epoch as the pages show it (UTC), `N/A` for 0 (not yet).
fn timestamp(ms: i64) -> String {
    if ms <= 0 {
        return "N/A".to_owned();
    }
    let format =
        time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second] UTC");
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|at| at.format(&format).ok())
        .unwrap_or_else(|| ms.to_string())
}

/// A duration in ms as `1h 2m 3s`.
fn elapsed(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}h {minutes}m {seconds}s")
    } else if minutes > 0 {
        format!("{minutes}m {seconds}s")
    } else {
        format!("{seconds}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_utc_and_unset_as_na() {
        assert_eq!(timestamp(0), "N/A");
        assert_eq!(timestamp(1_700_000_000_000), "2023-11-14 22:13:20 UTC");
        assert_eq!(elapsed(3_723_000), "1h 2m 3s");
        assert_eq!(elapsed(61_000), "1m 1s");
        assert_eq!(elapsed(-5), "0s");
    }
}

//! The applications page (`/cluster/apps`, `/cluster/apps/{STATE}`): Hadoop's table of
//! applications, filtered as `/ws/v1/cluster/apps` filters and sorted by any column.

use std::cmp::Ordering;

use axum::extract::{Path, Query, State};
use maud::{Markup, html};
use yarn_web::Sorting;

use super::ui_refusal::UiRefusal;
use super::{render, split_query, timestamp};
use crate::rest::RestApi;
use crate::rest::app_filter::AppFilter;
use crate::rest::app_info::AppInfo;
use crate::rest::rest_api::{RestCaller, select_apps};

/// The columns the table sorts by, with their headings.
const COLUMNS: [(&str, &str); 14] = [
    ("id", "ID"),
    ("user", "User"),
    ("name", "Name"),
    ("type", "Application Type"),
    ("queue", "Queue"),
    ("priority", "Application Priority"),
    ("started", "StartTime"),
    ("finished", "FinishTime"),
    ("state", "State"),
    ("final", "FinalStatus"),
    ("containers", "Running Containers"),
    ("vcores", "Allocated CPU VCores"),
    ("memory", "Allocated Memory MB"),
    ("progress", "Progress"),
];

/// Newest first, as Hadoop lists them.
const DEFAULT_SORTING: Sorting = Sorting {
    column: "id",
    descending: true,
};

/// How `a` and `b` compare in `column` (ascending).
fn compare(column: &str, a: &AppInfo, b: &AppInfo) -> Ordering {
    match column {
        "user" => a.user.cmp(&b.user),
        "name" => a.name.cmp(&b.name),
        "type" => a.application_type.cmp(&b.application_type),
        "queue" => a.queue.cmp(&b.queue),
        "priority" => a.priority.cmp(&b.priority),
        "started" => a.started_time.cmp(&b.started_time),
        "finished" => a.finished_time.cmp(&b.finished_time),
        "state" => a.state.cmp(&b.state),
        "final" => a.final_status.cmp(&b.final_status),
        "containers" => a.running_containers.cmp(&b.running_containers),
        "vcores" => a.allocated_vcores.cmp(&b.allocated_vcores),
        "memory" => a.allocated_mb.cmp(&b.allocated_mb),
        "progress" => a.progress.total_cmp(&b.progress),
        // Ids of one cluster compare by their sequence number, which the cluster timestamp
        // and the zero-padding of the name keep in string order up to 9999 and then by length.
        _ => (a.cluster_id, a.id.len(), &a.id).cmp(&(b.cluster_id, b.id.len(), &b.id)),
    }
}

/// `apps` sorted by `sorting`; ties keep the newest first.
pub(super) fn sort(apps: &mut [AppInfo], sorting: &Sorting) {
    apps.sort_by(|a, b| {
        sorting
            .apply(compare(sorting.column, a, b))
            .then_with(|| compare("id", b, a))
    });
}

pub(super) async fn apps(
    State(api): State<RestApi>,
    caller: RestCaller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Markup, UiRefusal> {
    page(&api, caller, "/cluster/apps", "All Applications", query).await
}

/// Hadoop's `/cluster/apps/RUNNING` and the like: the applications in one state.
pub(super) async fn apps_in_state(
    State(api): State<RestApi>,
    caller: RestCaller,
    Path(state): Path<String>,
    Query(mut query): Query<Vec<(String, String)>>,
) -> Result<Markup, UiRefusal> {
    let path = format!("/cluster/apps/{state}");
    let title = format!("{} Applications", state.to_uppercase());
    query.push(("states".to_owned(), state));
    page(&api, caller, &path, &title, query).await
}

async fn page(
    api: &RestApi,
    RestCaller(caller): RestCaller,
    path: &str,
    title: &str,
    query: Vec<(String, String)>,
) -> Result<Markup, UiRefusal> {
    let (sorting, filter_query) = split_query(&query, &COLUMNS, DEFAULT_SORTING)?;
    let filter = AppFilter::parse(&filter_query)?;
    let mut apps = select_apps(api, &caller, &filter).await?;
    sort(&mut apps, &sorting);
    // The state of /cluster/apps/{STATE} is in the path: headings carry the rest along.
    let keep: Vec<(&str, &str)> = query
        .iter()
        .filter(|(name, _)| {
            name != "sort" && name != "order" && !(name == "states" && path != "/cluster/apps")
        })
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let content = html! {
        p { (apps.len()) " applications" }
        table #apps {
            tr {
                @for (key, heading) in COLUMNS {
                    th { (sorting.heading(path, &keep, key, heading)) }
                }
                th { "Tracking UI" }
            }
            @for app in &apps {
                tr {
                    td { a href=(format!("/cluster/app/{}", app.id)) { (app.id) } }
                    td { (app.user) }
                    td { (app.name) }
                    td { (app.application_type) }
                    td { (app.queue) }
                    td.num { (app.priority) }
                    td { (timestamp(app.started_time)) }
                    td { (timestamp(app.finished_time)) }
                    td { (app.state) }
                    td { (app.final_status) }
                    td.num { (app.running_containers) }
                    td.num { (app.allocated_vcores) }
                    td.num { (app.allocated_mb) }
                    td.num { (format!("{:.1}%", app.progress)) }
                    td {
                        @match &app.tracking_url {
                            Some(url) => a href=(url) { (app.tracking_ui) },
                            None => (app.tracking_ui),
                        }
                    }
                }
            }
        }
    };
    Ok(render(api, &caller, title, &content))
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;
    use yarn_proto::pb;

    use super::*;
    use crate::rest::query;

    fn app(sequence: i32, user: &str, memory: i64) -> AppInfo {
        let report = pb::ApplicationReportProto {
            application_id: Some(ApplicationId::new(1_700, sequence).into()),
            user: user.to_owned(),
            yarn_application_state: pb::YarnApplicationStateProto::Running.into(),
            app_resource_usage: Some(pb::ApplicationResourceUsageReportProto {
                used_resources: Some(pb::ResourceProto {
                    memory,
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        };
        AppInfo::describe(&report, 0)
    }

    fn ids(apps: &[AppInfo]) -> Vec<&str> {
        apps.iter().map(|app| app.id.as_str()).collect()
    }

    #[test]
    fn newest_first_by_default_with_ids_past_9999_in_number_order() {
        let mut apps = vec![app(9_999, "a", 0), app(10_000, "a", 0), app(2, "a", 0)];
        sort(&mut apps, &DEFAULT_SORTING);
        assert_eq!(
            ids(&apps),
            [
                "application_1700_10000",
                "application_1700_9999",
                "application_1700_0002"
            ]
        );
    }

    #[test]
    fn any_column_sorts_both_ways_with_ties_newest_first() {
        let mut apps = vec![
            app(1, "bob", 512),
            app(2, "alice", 2048),
            app(3, "carol", 512),
        ];
        let by_memory = Sorting {
            column: "memory",
            descending: false,
        };
        sort(&mut apps, &by_memory);
        assert_eq!(
            ids(&apps),
            [
                "application_1700_0003",
                "application_1700_0001",
                "application_1700_0002"
            ]
        );
        let by_user = Sorting {
            column: "user",
            descending: true,
        };
        sort(&mut apps, &by_user);
        assert_eq!(
            apps.iter().map(|app| app.user.as_str()).collect::<Vec<_>>(),
            ["carol", "bob", "alice"]
        );
    }

    #[test]
    fn the_query_splits_into_sorting_and_the_rest_api_filter() {
        let asked = query(&[("sort", "user"), ("states", "RUNNING"), ("order", "asc")]);
        let (sorting, filter) = split_query(&asked, &COLUMNS, DEFAULT_SORTING).unwrap();
        assert_eq!(sorting.column, "user");
        assert!(!sorting.descending);
        assert_eq!(filter, query(&[("states", "RUNNING")]));
        let err =
            split_query(&query(&[("sort", "colour")]), &COLUMNS, DEFAULT_SORTING).unwrap_err();
        assert!(err.to_string().contains("colour"), "{err}");
    }
}

//! The ReservationSystem with real processes: three ResourceManagers with it enabled, one
//! NodeManager, and a reservable queue, reached through `yarn-ha reservation` and Hadoop's REST
//! endpoints.
//!
//! What this file proves: reservations are created, submitted, listed and deleted from the
//! command line and over REST in Hadoop's JSON; an overlapping one that breaks the queue's
//! sharing policy, a malformed one and one for a queue that is not reservable are refused with
//! the reason; every accepted reservation is still there, placed as before, after the active
//! ResourceManager is SIGKILLed; and an application submitted into a reservation is rejected
//! before its window, runs its AM container in the reservation's queue inside it, stays there
//! through the active's SIGKILL, and moves to the plan's default queue when it ends.

mod common;

use serde_json::{Value, json};
use yarn_minicluster::LayoutOptions;

use common::process_cluster::{ProcessCluster, eventually, one_cluster_at_a_time};
use common::rest_client::{Credentials, active, curl, setup};
use common::{stderr, stdout};

/// One 8 GB NodeManager and the ReservationSystem on.
fn layout() -> LayoutOptions {
    LayoutOptions {
        site: [
            ("yarn.nodemanager.resource.memory-mb", "8192"),
            ("yarn.resourcemanager.reservation-system.enable", "true"),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect(),
        ..LayoutOptions::default()
    }
}

/// `default` and the reservable `a`, half the cluster each; one user may hold at most half of
/// `a`'s plan at once.
fn queues(cluster: &ProcessCluster) {
    cluster.refresh_queues(&[
        ("yarn.scheduler.capacity.root.queues", "default,a"),
        ("yarn.scheduler.capacity.root.default.capacity", "50"),
        ("yarn.scheduler.capacity.root.a.capacity", "50"),
        ("yarn.scheduler.capacity.root.a.reservable", "true"),
        (
            "yarn.scheduler.capacity.root.a.instantaneous-max-capacity",
            "50",
        ),
    ]);
}

/// `yarn-ha reservation args...`: (exit code, stdout, stderr).
fn reservation(cluster: &ProcessCluster, args: &[&str]) -> (Option<i32>, String, String) {
    let out = cluster.yarn(&[&["reservation"], args].concat());
    (out.status.code(), stdout(&out), stderr(&out))
}

/// `POST base/ws/v1/cluster/reservation/<verb>` with `body`.
fn post(credentials: &Credentials, base: &str, verb: &str, body: Option<&Value>) -> (u16, String) {
    let body = body.map(Value::to_string);
    let answer = curl(
        Some(credentials),
        "POST",
        &format!("{base}/ws/v1/cluster/reservation/{verb}"),
        body.as_deref(),
        true,
    )
    .expect("curl reaches the active");
    (answer.status, answer.body)
}

/// Hadoop's `reservation-definition`: `gang` 1 GB containers together for ten minutes between
/// `arrival` and an hour later.
fn definition(arrival: i64, gang: i32) -> Value {
    definition_for(arrival, gang, 600_000, 3_600_000)
}

/// `gang` 1 GB containers together for `duration_ms`, within `window_ms` of `arrival`.
fn definition_for(arrival: i64, gang: i32, duration_ms: i64, window_ms: i64) -> Value {
    json!({
        "arrival": arrival,
        "deadline": arrival + window_ms,
        "reservation-name": "rest",
        "reservation-requests": {
            "reservation-request-interpreter": 1,
            "reservation-request": {
                "capability": {"memory": 1024, "vCores": 1},
                "num-containers": gang,
                "min-concurrency": gang,
                "duration": duration_ms
            }
        }
    })
}

/// One listed reservation: its id, its user and its allocation as (start, end, memory).
type Listed = (String, String, Vec<(i64, i64, i64)>);

/// The reservations of queue `a` over REST, by id.
fn listed(credentials: &Credentials, base: &str) -> Vec<Listed> {
    let answer = curl(
        Some(credentials),
        "GET",
        &format!("{base}/ws/v1/cluster/reservation/list?queue=a&include-resource-allocations=true"),
        None,
        true,
    )
    .expect("curl reaches the active");
    assert_eq!(answer.status, 200, "{answer:?}");
    let list = answer.json();
    let mut reservations: Vec<_> = list["reservations"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|reservation| {
            let pieces = reservation["resource-allocations"]
                .as_array()
                .expect("allocations")
                .iter()
                .map(|piece| {
                    (
                        piece["startTime"].as_i64().unwrap(),
                        piece["endTime"].as_i64().unwrap(),
                        piece["resource"]["memory"].as_i64().unwrap(),
                    )
                })
                .collect();
            (
                reservation["reservation-id"].as_str().unwrap().to_owned(),
                reservation["user"].as_str().unwrap().to_owned(),
                pieces,
            )
        })
        .collect();
    reservations.sort();
    reservations
}

#[test]
fn reservations_from_the_command_line_and_rest_survive_the_leader() {
    let _turn = one_cluster_at_a_time();
    let mut cluster = ProcessCluster::start_with(1, &layout());
    queues(&cluster);
    let (credentials, web) = setup(&cluster);
    let (_, base) = active(&credentials, &web);

    // From the command line: an id, then two gangs of 1 GB for ten minutes, an hour from now.
    let (code, id, err) = reservation(&cluster, &["create"]);
    assert_eq!(code, Some(0), "{err}");
    let cli_id = id.trim().to_owned();
    assert!(cli_id.starts_with("reservation_"), "{cli_id}");
    let stage = "memory=1024,containers=2,gang=2,duration=10m";
    let (code, out, err) = reservation(
        &cluster,
        &[
            "submit",
            "--queue",
            "a",
            "--id",
            &cli_id,
            "--arrival",
            "+1h",
            "--deadline",
            "+2h",
            "--request",
            stage,
            "--name",
            "cli",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim(), format!("Submitted {cli_id}"));
    let (code, out, err) = reservation(&cluster, &["list", "--queue", "a", "--allocations"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Total number of reservations:1"), "{out}");
    assert!(out.contains(&cli_id) && out.contains("name=cli"), "{out}");
    assert!(out.contains("<memory:2048, vCores:2>"), "{out}");

    // The sharing policy, a queue that is not reservable and a malformed stage, refused with
    // why, from the command line.
    for (queue, request, why) in [
        (
            "a",
            "memory=1024,containers=3,gang=3,duration=10m",
            "instantaneous-max-capacity",
        ),
        ("default", stage, "not managed by reservation system"),
        (
            "a",
            "memory=1024,containers=3,gang=2,duration=10m",
            "reservation_requests[0].concurrency",
        ),
    ] {
        let (code, _, err) = reservation(
            &cluster,
            &[
                "submit",
                "--queue",
                queue,
                "--arrival",
                "+1h",
                "--deadline",
                "+2h",
                "--request",
                request,
            ],
        );
        assert_eq!(code, Some(1), "{queue} {request}");
        assert!(err.contains(why), "{err}");
    }

    // Over REST, in Hadoop's JSON: a new id (200), a submission (202), the list.
    let (status, body) = post(&credentials, &base, "new-reservation", None);
    assert_eq!(status, 200, "{body}");
    let new: Value = serde_json::from_str(&body).unwrap();
    let rest_id = new["reservation-id"].as_str().expect("an id").to_owned();
    let arrival = (yarn_security::now_ms() / 1_000 + 7_200) * 1_000;
    let submission = json!({
        "queue": "a",
        "reservation-id": rest_id,
        "reservation-definition": definition(arrival, 2),
    });
    let (status, body) = post(&credentials, &base, "submit", Some(&submission));
    assert_eq!(status, 202, "{body}");
    let mut backwards = definition(arrival, 2);
    backwards["deadline"] = json!(arrival - 1);
    let bad = json!({"queue": "a", "reservation-id": rest_id, "reservation-definition": backwards});
    let (status, body) = post(&credentials, &base, "submit", Some(&bad));
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("RemoteException") && body.contains("deadline"),
        "{body}"
    );
    let (status, body) = post(
        &credentials,
        &base,
        "delete",
        Some(&json!({"reservation-id": "reservation_1_9999"})),
    );
    assert_eq!(status, 400, "an unknown id, as Hadoop answers it: {body}");
    assert!(body.contains("is unknown"), "{body}");
    let (status, body) = post(
        &credentials,
        &base,
        "delete",
        Some(&json!({"reservation-id": "application_1_0001"})),
    );
    assert_eq!(
        status, 404,
        "an id that does not parse, as Hadoop answers it: {body}"
    );
    let before = listed(&credentials, &base);
    assert_eq!(before.len(), 2, "{before:?}");
    let rest = before
        .iter()
        .find(|(id, _, _)| *id == rest_id)
        .expect("the REST one");
    assert_eq!(
        rest.2,
        [(arrival, arrival + 600_000, 2048)],
        "placed as early as allowed"
    );

    // Both survive the active's SIGKILL, placed as they were.
    let killed = cluster.kill_leader();
    let survivors: Vec<(String, String)> = web
        .iter()
        .filter(|(rm_id, _)| *rm_id != killed)
        .cloned()
        .collect();
    let (_, new_base) = active(&credentials, &survivors);
    assert_eq!(listed(&credentials, &new_base), before);

    // Deleted from the command line, it is gone.
    let (code, out, err) = reservation(&cluster, &["delete", "--id", &cli_id]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim(), format!("Deleted {cli_id}"));
    let (code, out, err) = reservation(&cluster, &["list", "--queue", "a"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("Total number of reservations:1") && !out.contains(&cli_id),
        "{out}"
    );
}

/// Submits over REST, in Hadoop's JSON, an application of queue `a` in `reservation` whose AM
/// container sleeps; returns its id.
fn submit_in_reservation(credentials: &Credentials, base: &str, reservation: &str) -> String {
    let new = curl(
        Some(credentials),
        "POST",
        &format!("{base}/ws/v1/cluster/apps/new-application"),
        None,
        true,
    )
    .expect("curl reaches the active");
    assert_eq!(new.status, 200, "{new:?}");
    let id = new.json()["application-id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let context = json!({
        "application-id": id,
        "application-name": "reserved",
        "queue": "a",
        "reservation-id": reservation,
        "am-container-spec": {"commands": {"command": "sleep 120"}},
        "max-app-attempts": 1,
        "resource": {"memory": 1024, "vCores": 1},
    });
    let submitted = curl(
        Some(credentials),
        "POST",
        &format!("{base}/ws/v1/cluster/apps"),
        Some(&context.to_string()),
        true,
    )
    .expect("curl reaches the active");
    assert_eq!(submitted.status, 202, "{submitted:?}");
    id
}

/// The REST report of application `id`, once it is past SUBMITTED.
fn decided(credentials: &Credentials, base: &str, id: &str) -> Value {
    eventually("the application's admission", || {
        let answer = curl(
            Some(credentials),
            "GET",
            &format!("{base}/ws/v1/cluster/apps/{id}"),
            None,
            true,
        )
        .ok()?;
        let app = answer.json()["app"].clone();
        (answer.status == 200 && !matches!(app["state"].as_str(), Some("NEW" | "SUBMITTED")))
            .then_some(app)
    })
}

#[test]
fn an_application_runs_in_its_reservation_inside_the_window_and_not_before() {
    let _turn = one_cluster_at_a_time();
    let mut cluster = ProcessCluster::start_with(1, &layout());
    queues(&cluster);
    let (credentials, web) = setup(&cluster);
    let (_, base) = active(&credentials, &web);

    // A window from fifteen seconds on, on a whole second (the plan's step), of thirty
    // seconds: one 1 GB container, what the application's AM needs.
    let (status, body) = post(&credentials, &base, "new-reservation", None);
    assert_eq!(status, 200, "{body}");
    let reservation = serde_json::from_str::<Value>(&body).unwrap()["reservation-id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let arrival = (yarn_security::now_ms() / 1_000 + 15) * 1_000;
    let submission = json!({
        "queue": "a",
        "reservation-id": reservation,
        "reservation-definition": definition_for(arrival, 1, 30_000, 35_000),
    });
    let (status, body) = post(&credentials, &base, "submit", Some(&submission));
    assert_eq!(status, 202, "{body}");

    // Before the window: rejected, with the reason.
    let early = submit_in_reservation(&credentials, &base, &reservation);
    let early = decided(&credentials, &base, &early);
    assert_eq!(early["state"], "FAILED", "{early}");
    let diagnostics = early["diagnostics"].as_str().unwrap_or_default();
    assert!(
        diagnostics.contains("not currently active"),
        "{diagnostics}"
    );

    // Inside it: in the reservation's queue, its AM container running on the NodeManager.
    let inside = eventually("an application accepted into the reservation", || {
        let id = submit_in_reservation(&credentials, &base, &reservation);
        let app = decided(&credentials, &base, &id);
        (app["state"] != "FAILED").then_some(id)
    });
    assert!(
        yarn_security::now_ms() >= arrival,
        "never before the window"
    );
    let app = decided(&credentials, &base, &inside);
    assert_eq!(app["queue"], format!("root.a.{reservation}"), "{app}");
    eventually("the AM container in the reservation's queue", || {
        let app = decided(&credentials, &base, &inside);
        (app["allocatedMB"].as_i64() >= Some(1024)).then_some(())
    });

    // The active's SIGKILL changes nothing: the new one holds it in the reservation.
    let killed = cluster.kill_leader();
    let survivors: Vec<(String, String)> = web
        .iter()
        .filter(|(rm_id, _)| *rm_id != killed)
        .cloned()
        .collect();
    let (_, base) = active(&credentials, &survivors);
    let app = decided(&credentials, &base, &inside);
    let in_reservation = app["queue"] == format!("root.a.{reservation}");
    let moved_after_the_end =
        app["queue"] == "root.a.a-default" && yarn_security::now_ms() >= arrival + 30_000;
    assert!(in_reservation || moved_after_the_end, "{app}");

    // When the window ends it moves on, to the plan's default queue, still running.
    let moved = eventually("the move on expiry", || {
        let app = decided(&credentials, &base, &inside);
        (app["queue"] == "root.a.a-default").then_some(app)
    });
    assert!(
        yarn_security::now_ms() >= arrival + 30_000,
        "not before the window's end"
    );
    assert_eq!(moved["allocatedMB"].as_i64(), Some(1024), "{moved}");
    let killed = curl(
        Some(&credentials),
        "PUT",
        &format!("{base}/ws/v1/cluster/apps/{inside}/state"),
        Some(r#"{"state":"KILLED"}"#),
        true,
    )
    .expect("curl reaches the active");
    assert!(matches!(killed.status, 200 | 202), "{killed:?}");
}

//! User limits: minimum-user-limit-percent, user-limit-factor, weights and the
//! one-container-past rule (TestLeafQueue#testUserLimits and friends).

use crate::mock::*;

/// One leaf taking the whole cluster; AM limits opened up so only user limits bind.
fn one_queue(extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut pairs = vec![
        ("root.queues".to_string(), "default".to_string()),
        ("root.default.capacity".to_string(), "100".to_string()),
        ("maximum-am-resource-percent".to_string(), "1.0".to_string()),
    ];
    pairs.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    pairs
}

fn must_scheduler_for(
    extra: &[(&str, &str)],
    memory_gib: u64,
) -> yarn_scheduler::CapacityScheduler {
    let pairs = one_queue(extra);
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    must_scheduler(must_conf(&pairs), 1, memory_gib, 64)
}

#[test]
fn a_single_user_is_capped_at_capacity_times_factor_plus_one_container() {
    // The queue is guaranteed 10 of 20 GiB and may grow to all 20.
    let half = [
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("maximum-am-resource-percent", "1.0"),
    ];
    let mut scheduler = must_scheduler(must_conf(&half), 1, 20, 64);
    must_start(&mut scheduler, 1, "a", "alice", 100);
    schedule_until_idle(&mut scheduler);
    // Limit 10 GiB (factor 1); at 10 GiB usage is not above the limit, so one more fits.
    assert_eq!(app_gib(&scheduler, 1), 11);

    let mut doubled = half.to_vec();
    doubled.push(("root.a.user-limit-factor", "2"));
    let mut scheduler = must_scheduler(must_conf(&doubled), 1, 20, 64);
    must_start(&mut scheduler, 1, "a", "alice", 100);
    schedule_until_idle(&mut scheduler);
    assert_eq!(
        app_gib(&scheduler, 1),
        20,
        "factor 2 lets the user fill the queue maximum"
    );
}

#[test]
fn two_users_split_by_minimum_user_limit_percent() {
    let mut scheduler =
        must_scheduler_for(&[("root.default.minimum-user-limit-percent", "50")], 10);
    must_start(&mut scheduler, 1, "default", "u1", 100);
    must_start(&mut scheduler, 2, "default", "u2", 100);
    scheduler.schedule();
    // Each user's limit is 50% of 10 GiB; u1 is served first and gets one container past it.
    assert_eq!(app_gib(&scheduler, 1), 6);
    assert_eq!(app_gib(&scheduler, 2), 4);
    let info = scheduler.queue_info("default").unwrap();
    assert_eq!(info.users.len(), 2);
    // Reported limits are the all-users limit: the queue is full, so it is computed from
    // usage plus one minimum allocation (11 GiB / 2, rounded up).
    assert!(info.users.iter().all(|u| u.user_limit.memory_mb == 6 * GIB));
}

#[test]
fn four_users_get_a_quarter_each_one_container_past() {
    let mut scheduler =
        must_scheduler_for(&[("root.default.minimum-user-limit-percent", "25")], 20);
    for (n, user) in [(1, "u1"), (2, "u2"), (3, "u3"), (4, "u4")] {
        must_start(&mut scheduler, n, "default", user, 100);
    }
    scheduler.schedule();
    let used: Vec<u64> = (1..=4).map(|n| app_gib(&scheduler, n)).collect();
    assert_eq!(
        used,
        vec![6, 6, 6, 2],
        "limit 5 GiB each, plus one container"
    );
}

#[test]
fn a_single_user_with_no_competition_uses_the_whole_queue() {
    let mut scheduler =
        must_scheduler_for(&[("root.default.minimum-user-limit-percent", "25")], 20);
    must_start(&mut scheduler, 1, "default", "u1", 100);
    schedule_until_idle(&mut scheduler);
    assert_eq!(app_gib(&scheduler, 1), 20);
}

#[test]
fn weights_give_a_user_a_larger_share() {
    let mut scheduler = must_scheduler_for(
        &[
            ("root.default.minimum-user-limit-percent", "50"),
            ("root.default.user-settings.u1.weight", "1.5"),
        ],
        10,
    );
    must_start(&mut scheduler, 1, "default", "u1", 100);
    must_start(&mut scheduler, 2, "default", "u2", 100);
    scheduler.schedule();
    // 5 GiB shared limit times 1.5, rounded down to 7 GiB, plus one container.
    assert_eq!(app_gib(&scheduler, 1), 8);
    assert_eq!(app_gib(&scheduler, 2), 2);
    let info = scheduler.queue_info("default").unwrap();
    let u1 = info.users.iter().find(|u| u.user == "u1").unwrap();
    // All-users limit on the full queue: 11 GiB * 50% = 5.5, rounded up to 6, times 1.5.
    assert_eq!(u1.user_limit.memory_mb, 9 * GIB);
}

#[test]
fn headroom_is_the_smaller_of_user_room_and_queue_room_capped_by_free_resources() {
    let conf = must_conf(&[
        ("root.queues", "a,b"),
        ("root.a.capacity", "50"),
        ("root.b.capacity", "50"),
        ("root.b.user-limit-factor", "10"),
    ]);
    let mut scheduler = must_scheduler(conf, 1, 20, 64);
    must_start(&mut scheduler, 1, "a", "alice", 3);
    schedule_until_idle(&mut scheduler);
    assert_eq!(app_gib(&scheduler, 1), 4);
    // User limit 10 GiB minus 4 GiB used; the queue could still grow to 20 GiB.
    assert_eq!(scheduler.headroom(attempt(1)).unwrap().memory_mb, 6 * GIB);

    must_start(&mut scheduler, 2, "b", "bob", 14);
    schedule_until_idle(&mut scheduler);
    assert_eq!(app_gib(&scheduler, 2), 15);
    // Only 1 GiB is free in the cluster now.
    assert_eq!(scheduler.headroom(attempt(1)).unwrap().memory_mb, GIB);
    assert!(scheduler.headroom(attempt(7)).is_err());
}

#[test]
fn headroom_divides_the_user_limit_among_active_users_only() {
    // One 20 GiB queue where four users could each count on a quarter.
    let mut scheduler =
        must_scheduler_for(&[("root.default.minimum-user-limit-percent", "25")], 20);
    must_start(&mut scheduler, 2, "default", "bob", 8);
    schedule_until_idle(&mut scheduler);
    assert_eq!(
        app_gib(&scheduler, 2),
        9,
        "bob's AM and eight tasks, nothing pending"
    );
    must_start(&mut scheduler, 1, "default", "alice", 0);
    schedule_until_idle(&mut scheduler);
    assert_eq!(app_gib(&scheduler, 1), 1, "alice's AM only");
    // bob asks for nothing, so only alice shares: max(her 1 GiB + 1, 25% of 20 GiB) = 5 GiB,
    // minus her 1 GiB. Counting bob would give max(20 / 2, 5) - 1 = 9 GiB.
    assert_eq!(scheduler.headroom(attempt(1)).unwrap().memory_mb, 4 * GIB);
}

//! What `yarn-ha application` prints, as pure functions of the RM's replies.

use std::fmt::Write;

use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

use super::table::push_row;
use super::text::{
    NOT_AVAILABLE, application_id_text, application_state_name, final_status_name, format_progress,
};
use crate::KillOutcome;
use crate::terminal_text::escape_for_terminal;

/// The columns of `application -list`, in order.
pub const APPLICATION_LIST_COLUMNS: [&str; 9] = [
    "Application-Id",
    "Application-Name",
    "Application-Type",
    "User",
    "Queue",
    "State",
    "Final-State",
    "Progress",
    "Tracking-URL",
];

/// Hadoop's minimum column widths, so that scripts written against `yarn application -list`
/// see the same layout.
const APPLICATION_LIST_WIDTHS: [usize; 9] = [30, 20, 20, 10, 10, 18, 18, 15, 35];

/// The `-appTypes` words as the RM is asked for them and the header shows them: trimmed,
/// upper-cased as Hadoop does (the RM compares types ignoring case), empty words dropped, each
/// once, in the order given.
pub fn selected_application_types(words: &[String]) -> Vec<String> {
    let mut types: Vec<String> = Vec::new();
    for word in words {
        let word = word.trim().to_ascii_uppercase();
        if !word.is_empty() && !types.contains(&word) {
            types.push(word);
        }
    }
    types
}

/// The `application -list` output: the count line naming the filters, as Hadoop prints it
/// (`Total number of applications (application-types: [] and states: [RUNNING]):2`; the tags
/// appear only when some were given), then the column headers and one tab-separated row per
/// report, in the order given. Types, tags and every cell are escaped for the terminal.
pub fn format_application_list(
    types: &[String],
    states: &[pb::YarnApplicationStateProto],
    tags: &[String],
    reports: &[pb::ApplicationReportProto],
) -> String {
    let states: Vec<&str> = states.iter().map(|s| application_state_name(*s)).collect();
    let filters = if tags.is_empty() {
        format!(
            "application-types: [{}] and states: [{}]",
            types.join(", "),
            states.join(", ")
        )
    } else {
        format!(
            "application-types: [{}], states: [{}] and tags: [{}]",
            types.join(", "),
            states.join(", "),
            tags.join(", ")
        )
    };
    let mut out = format!(
        "Total number of applications ({}):{}\n",
        escape_for_terminal(&filters),
        reports.len()
    );
    push_row(
        &mut out,
        &APPLICATION_LIST_WIDTHS,
        &APPLICATION_LIST_COLUMNS,
    );
    for report in reports {
        let id = application_id_text(report.application_id.as_ref());
        let progress = format_progress(report.progress);
        push_row(
            &mut out,
            &APPLICATION_LIST_WIDTHS,
            &[
                &id,
                &report.name,
                &report.application_type,
                &report.user,
                &report.queue,
                application_state_name(report.yarn_application_state()),
                final_status_name(report.final_application_status()),
                &progress,
                &report.tracking_url,
            ],
        );
    }
    out
}

/// The `application -status` output: Hadoop's `Application Report :` block, one
/// `\t<label> : <value>` line each, values escaped for the terminal (so multi-line diagnostics
/// stay on their line). Start and finish times are ms since the Unix epoch, as Hadoop prints
/// them (the finish time is 0 while the application runs).
pub fn format_application_report(report: &pb::ApplicationReportProto) -> String {
    let usage = report.app_resource_usage.clone().unwrap_or_default();
    let seconds = |memory: i64, vcores: i64| format!("{memory} MB-seconds, {vcores} vcore-seconds");
    let priority = report
        .priority
        .map_or_else(|| NOT_AVAILABLE.to_owned(), |p| p.priority.to_string());
    let lines = [
        (
            "Application-Id",
            application_id_text(report.application_id.as_ref()),
        ),
        ("Application-Name", report.name.clone()),
        ("Application-Type", report.application_type.clone()),
        ("User", report.user.clone()),
        ("Queue", report.queue.clone()),
        ("Application Priority", priority),
        ("Start-Time", report.start_time.to_string()),
        ("Finish-Time", report.finish_time.to_string()),
        ("Progress", format_progress(report.progress)),
        (
            "State",
            application_state_name(report.yarn_application_state()).to_owned(),
        ),
        (
            "Final-State",
            final_status_name(report.final_application_status()).to_owned(),
        ),
        ("Tracking-URL", report.tracking_url.clone()),
        ("RPC Port", report.rpc_port.to_string()),
        ("AM Host", report.host.clone()),
        (
            "Aggregate Resource Allocation",
            seconds(usage.memory_seconds, usage.vcore_seconds),
        ),
        (
            "Aggregate Resource Preempted",
            seconds(
                usage.preempted_memory_seconds,
                usage.preempted_vcore_seconds,
            ),
        ),
        ("Diagnostics", report.diagnostics.clone()),
        (
            "Unmanaged Application",
            report.unmanaged_application.to_string(),
        ),
    ];
    let mut out = String::from("Application Report : \n");
    for (label, value) in lines {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "\t{label} : {}", escape_for_terminal(&value));
    }
    for timeout in report
        .app_timeouts
        .iter()
        .filter_map(|entry| entry.application_timeout.as_ref())
    {
        let _ = writeln!(
            out,
            "\tTimeoutType : {}\tExpiryTime : {}\tRemainingTime : {}seconds",
            timeout_type_name(timeout.application_timeout_type()),
            escape_for_terminal(&timeout.expire_time),
            timeout.remaining_time
        );
    }
    out
}

/// Hadoop's name of a timeout type, as `-status` prints it.
fn timeout_type_name(kind: pb::ApplicationTimeoutTypeProto) -> &'static str {
    match kind {
        pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime => "LIFETIME",
        pb::ApplicationTimeoutTypeProto::ApplicationTimeoutTypeUnspecified => "N/A",
    }
}

/// The line `application -updateLifetime` prints before asking the RM.
pub fn format_lifetime_update_started(id: ApplicationId) -> String {
    format!("Updating timeout for given timeoutType: LIFETIME of an application {id}\n")
}

/// The line `application -updateLifetime` prints once the RM answered with the expiry time
/// `in_force`, having been asked for `requested`: Hadoop's own two wordings, the second when
/// the queue's maximum lifetime brought it earlier.
pub fn format_lifetime_updated(id: ApplicationId, requested: &str, in_force: &str) -> String {
    let in_force = escape_for_terminal(in_force);
    if requested == in_force {
        format!(
            "Successfully updated LIFETIME of an application {id}. New expiry time is {in_force}\n"
        )
    } else {
        // Two spaces, as Hadoop prints them.
        format!(
            "Updated lifetime of an application  {id} to queue max/default lifetime. New expiry \
             time is {in_force}\n"
        )
    }
}

/// The line `application -kill` prints before asking the RM to kill a running application.
pub fn format_kill_started(id: ApplicationId) -> String {
    format!("Killing application {id}\n")
}

/// The line `application -kill` prints once the RM answered.
pub fn format_kill_outcome(id: ApplicationId, outcome: KillOutcome) -> String {
    match outcome {
        KillOutcome::Killed => format!("Killed application {id}\n"),
        KillOutcome::AlreadyFinished(_) => format!("Application {id} has already finished\n"),
    }
}

/// The line `application -movetoqueue` prints before asking the RM to move the application,
/// the queue escaped for the terminal.
pub fn format_move_started(id: ApplicationId, queue: &str) -> String {
    format!(
        "Moving application {id} to queue {}\n",
        escape_for_terminal(queue)
    )
}

/// The line `application -movetoqueue` prints once the move is committed.
pub fn format_move_completed() -> String {
    "Successfully completed move.\n".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::YarnApplicationStateProto as State;

    fn report(id: i32, name: &str, state: State) -> pb::ApplicationReportProto {
        pb::ApplicationReportProto {
            application_id: Some(ApplicationId::new(1_700_000_000_000, id).into()),
            user: "alice".to_owned(),
            queue: "root.a".to_owned(),
            name: name.to_owned(),
            host: "nm1.example.com".to_owned(),
            rpc_port: 41_234,
            yarn_application_state: state.into(),
            tracking_url: format!("http://rm1.example.com:8088/proxy/application_{id}/"),
            diagnostics: "AM container launched".to_owned(),
            start_time: 1_700_000_000_500,
            finish_time: 0,
            final_application_status: pb::FinalApplicationStatusProto::AppUndefined.into(),
            app_resource_usage: Some(pb::ApplicationResourceUsageReportProto {
                memory_seconds: 20_480,
                vcore_seconds: 10,
                preempted_memory_seconds: 4_096,
                preempted_vcore_seconds: 2,
                ..Default::default()
            }),
            progress: 0.425,
            application_type: "MAPREDUCE".to_owned(),
            priority: Some(pb::PriorityProto { priority: 3 }),
            ..Default::default()
        }
    }

    fn cells(line: &str) -> Vec<&str> {
        line.split('\t').map(str::trim).collect()
    }

    #[test]
    fn list_counts_the_reports_and_names_the_filters_like_hadoop() {
        let reports = [
            report(1, "word count", State::Running),
            report(2, "sort", State::Accepted),
        ];
        let text = format_application_list(
            &["MAPREDUCE".to_owned()],
            &[State::Submitted, State::Accepted, State::Running],
            &[],
            &reports,
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "Total number of applications (application-types: [MAPREDUCE] and states: \
             [SUBMITTED, ACCEPTED, RUNNING]):2"
        );
        assert_eq!(cells(lines[1]), APPLICATION_LIST_COLUMNS);
        assert_eq!(lines.len(), 4);

        let empty = format_application_list(&[], &[State::Finished], &["nightly".to_owned()], &[]);
        let empty_lines: Vec<&str> = empty.lines().collect();
        assert_eq!(
            empty_lines,
            [
                "Total number of applications (application-types: [], states: [FINISHED] and \
                 tags: [nightly]):0",
                lines[1],
            ],
            "the headers stay when nothing matches"
        );
    }

    #[test]
    fn list_rows_carry_every_column_tab_separated() {
        let mut finished = report(12_345, "pi", State::Finished);
        finished.final_application_status = pb::FinalApplicationStatusProto::AppSucceeded.into();
        finished.progress = 1.0;
        let text = format_application_list(&[], &[State::Finished], &[], &[finished]);
        let row = text.lines().nth(2).unwrap();
        assert_eq!(
            cells(row),
            [
                "application_1700000000000_12345",
                "pi",
                "MAPREDUCE",
                "alice",
                "root.a",
                "FINISHED",
                "SUCCEEDED",
                "100%",
                "http://rm1.example.com:8088/proxy/application_12345/",
            ]
        );
        // Hadoop's widths: the id column is padded to 30 characters.
        assert!(row.starts_with(&format!("{:>30}\t", "application_1700000000000_12345")));
    }

    #[test]
    fn list_escapes_what_users_and_ams_chose_and_keeps_its_columns() {
        let mut hostile = report(9, "\x1b]0;pwned\x07evil", State::Running);
        hostile.application_type = "MAP\tREDUCE".to_owned();
        hostile.user = "bob\u{202e}".to_owned();
        hostile.queue = "root.\u{9b}2J".to_owned();
        hostile.tracking_url = "http://x/\r\n".to_owned();
        let text = format_application_list(
            &["T\x1bY".to_owned()],
            &[State::Running],
            &["tag\n1".to_owned()],
            &[hostile],
        );
        assert!(
            !text.contains(['\x1b', '\x07', '\r', '\u{9b}', '\u{202e}']),
            "{text:?}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text:?}");
        assert_eq!(
            lines[0],
            "Total number of applications (application-types: [T\\eY], states: [RUNNING] and \
             tags: [tag\\n1]):1"
        );
        assert_eq!(
            cells(lines[2]),
            [
                "application_1700000000000_0009",
                "\\e]0;pwned\\aevil",
                "MAP\\tREDUCE",
                "bob\\u{202e}",
                "root.\\u{9b}2J",
                "RUNNING",
                "UNDEFINED",
                "42.5%",
                "http://x/\\r\\n",
            ]
        );
        // Hadoop's 20 characters of the name and type columns count the escaped text: 16 and
        // 11 of them here.
        let padded = format!("\t{:>20}\t{:>20}\t", "\\e]0;pwned\\aevil", "MAP\\tREDUCE");
        assert!(lines[2].contains(&padded), "{:?}", lines[2]);
    }

    #[test]
    fn app_types_are_upper_cased_trimmed_and_deduplicated_in_order() {
        let words = ["spark", " MapReduce ", "", "SPARK"].map(str::to_owned);
        assert_eq!(selected_application_types(&words), ["SPARK", "MAPREDUCE"]);
    }

    #[test]
    fn status_prints_hadoops_report_block() {
        let text = format_application_report(&report(7, "word count", State::Running));
        assert_eq!(
            text,
            "Application Report : \n\
             \tApplication-Id : application_1700000000000_0007\n\
             \tApplication-Name : word count\n\
             \tApplication-Type : MAPREDUCE\n\
             \tUser : alice\n\
             \tQueue : root.a\n\
             \tApplication Priority : 3\n\
             \tStart-Time : 1700000000500\n\
             \tFinish-Time : 0\n\
             \tProgress : 42.5%\n\
             \tState : RUNNING\n\
             \tFinal-State : UNDEFINED\n\
             \tTracking-URL : http://rm1.example.com:8088/proxy/application_7/\n\
             \tRPC Port : 41234\n\
             \tAM Host : nm1.example.com\n\
             \tAggregate Resource Allocation : 20480 MB-seconds, 10 vcore-seconds\n\
             \tAggregate Resource Preempted : 4096 MB-seconds, 2 vcore-seconds\n\
             \tDiagnostics : AM container launched\n\
             \tUnmanaged Application : false\n"
        );
    }

    #[test]
    fn status_escapes_each_value_and_keeps_one_line_per_label() {
        let mut hostile = report(7, "\x1b]0;pwned\x07evil", State::Failed);
        hostile.diagnostics = "AM failed\n\tState : FINISHED\x1b[1A".to_owned();
        hostile.host = "nm\x08\x08".to_owned();
        let text = format_application_report(&hostile);
        assert!(!text.contains(['\x1b', '\x07', '\x08']), "{text:?}");
        assert_eq!(text.lines().count(), 19, "{text}");
        assert!(
            text.contains("\tApplication-Name : \\e]0;pwned\\aevil\n"),
            "{text}"
        );
        assert!(
            text.contains("\tDiagnostics : AM failed\\n\\tState : FINISHED\\e[1A\n"),
            "{text}"
        );
        assert!(text.contains("\tAM Host : nm\\b\\b\n"), "{text}");
    }

    #[test]
    fn status_of_a_sparse_report_says_what_is_unknown() {
        let text = format_application_report(&pb::ApplicationReportProto::default());
        assert!(text.contains("\tApplication-Id : N/A\n"), "{text}");
        assert!(text.contains("\tApplication Priority : N/A\n"), "{text}");
        assert!(text.contains("\tState : UNKNOWN\n"), "{text}");
    }

    #[test]
    fn status_ends_with_the_lifetime_and_updates_say_whether_the_queue_capped_them() {
        let mut timed = report(7, "job", State::Running);
        let lifetime = pb::ApplicationTimeoutTypeProto::AppTimeoutLifetime;
        timed.app_timeouts = vec![pb::AppTimeoutsMapProto {
            application_timeout_type: lifetime.into(),
            application_timeout: Some(pb::ApplicationTimeoutProto {
                application_timeout_type: lifetime.into(),
                expire_time: "2026-11-30T07:10:00.000+0000".to_owned(),
                remaining_time: 42,
            }),
        }];
        let text = format_application_report(&timed);
        assert!(
            text.ends_with(
                "\tUnmanaged Application : false\n\tTimeoutType : LIFETIME\tExpiryTime : \
                 2026-11-30T07:10:00.000+0000\tRemainingTime : 42seconds\n"
            ),
            "{text}"
        );

        let id = ApplicationId::new(1_700_000_000_000, 3);
        let asked = "2026-11-30T08:00:00.000+0000";
        assert_eq!(
            format_lifetime_update_started(id),
            "Updating timeout for given timeoutType: LIFETIME of an application \
             application_1700000000000_0003\n"
        );
        assert_eq!(
            format_lifetime_updated(id, asked, asked),
            "Successfully updated LIFETIME of an application application_1700000000000_0003. \
             New expiry time is 2026-11-30T08:00:00.000+0000\n"
        );
        assert_eq!(
            format_lifetime_updated(id, asked, "2026-11-30T07:30:00.000+0000"),
            "Updated lifetime of an application  application_1700000000000_0003 to queue \
             max/default lifetime. New expiry time is 2026-11-30T07:30:00.000+0000\n"
        );
    }

    #[test]
    fn kill_and_move_messages_follow_hadoop() {
        let id = ApplicationId::new(1_700_000_000_000, 3);
        assert_eq!(
            format_kill_started(id),
            "Killing application application_1700000000000_0003\n"
        );
        assert_eq!(
            format_kill_outcome(id, KillOutcome::Killed),
            "Killed application application_1700000000000_0003\n"
        );
        assert_eq!(
            format_kill_outcome(id, KillOutcome::AlreadyFinished(State::Failed)),
            "Application application_1700000000000_0003 has already finished\n"
        );
        assert_eq!(
            format_move_started(id, "root.b"),
            "Moving application application_1700000000000_0003 to queue root.b\n"
        );
        assert_eq!(
            format_move_started(id, "root.b\x1b[2K"),
            "Moving application application_1700000000000_0003 to queue root.b\\e[2K\n"
        );
        assert_eq!(format_move_completed(), "Successfully completed move.\n");
    }
}

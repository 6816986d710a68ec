//! How single values print in the user commands: Hadoop's enum names (without the prefixes the
//! `.proto` files add), progress as a percentage, and times as dates.

use yarn_proto::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use yarn_proto::pb;

/// What an absent value prints as, as in Hadoop.
pub const NOT_AVAILABLE: &str = "N/A";

/// Hadoop's name of an application state (`RUNNING`); `UNKNOWN` for a value this build does not
/// know.
pub fn application_state_name(state: pb::YarnApplicationStateProto) -> &'static str {
    use pb::YarnApplicationStateProto as State;
    match state {
        State::YarnApplicationStateUnspecified => "UNKNOWN",
        State::New => "NEW",
        State::NewSaving => "NEW_SAVING",
        State::Submitted => "SUBMITTED",
        State::Accepted => "ACCEPTED",
        State::Running => "RUNNING",
        State::Finished => "FINISHED",
        State::Failed => "FAILED",
        State::Killed => "KILLED",
    }
}

/// Hadoop's name of a final application status (`SUCCEEDED`, `UNDEFINED` while running).
pub fn final_status_name(status: pb::FinalApplicationStatusProto) -> &'static str {
    use pb::FinalApplicationStatusProto as Status;
    match status {
        Status::AppUndefined => "UNDEFINED",
        Status::AppSucceeded => "SUCCEEDED",
        Status::AppFailed => "FAILED",
        Status::AppKilled => "KILLED",
        Status::AppEnded => "ENDED",
    }
}

/// Hadoop's name of a node state (`RUNNING`); `UNKNOWN` for a value this build does not know.
pub fn node_state_name(state: pb::NodeStateProto) -> &'static str {
    use pb::NodeStateProto as State;
    match state {
        State::NodeStateUnspecified => "UNKNOWN",
        State::NsNew => "NEW",
        State::NsRunning => "RUNNING",
        State::NsUnhealthy => "UNHEALTHY",
        State::NsDecommissioned => "DECOMMISSIONED",
        State::NsLost => "LOST",
        State::NsRebooted => "REBOOTED",
        State::NsDecommissioning => "DECOMMISSIONING",
        State::NsShutdown => "SHUTDOWN",
    }
}

/// Hadoop's name of an application attempt state (`RUNNING`, `ALLOCATED_SAVING`); `UNKNOWN`
/// for a value this build does not know.
pub fn attempt_state_name(state: pb::YarnApplicationAttemptStateProto) -> &'static str {
    use pb::YarnApplicationAttemptStateProto as State;
    match state {
        State::YarnApplicationAttemptStateUnspecified => "UNKNOWN",
        State::AppAttemptNew => "NEW",
        State::AppAttemptSubmitted => "SUBMITTED",
        State::AppAttemptScheduled => "SCHEDULED",
        State::AppAttemptAllocatedSaving => "ALLOCATED_SAVING",
        State::AppAttemptAllocated => "ALLOCATED",
        State::AppAttemptLaunched => "LAUNCHED",
        State::AppAttemptFailed => "FAILED",
        State::AppAttemptRunning => "RUNNING",
        State::AppAttemptFinishing => "FINISHING",
        State::AppAttemptFinished => "FINISHED",
        State::AppAttemptKilled => "KILLED",
    }
}

/// Hadoop's name of a container state (`COMPLETE`); `UNKNOWN` for a value this build does not
/// know.
pub fn container_state_name(state: pb::ContainerStateProto) -> &'static str {
    use pb::ContainerStateProto as State;
    match state {
        State::ContainerStateUnspecified => "UNKNOWN",
        State::CNew => "NEW",
        State::CRunning => "RUNNING",
        State::CComplete => "COMPLETE",
        State::CScheduled => "SCHEDULED",
    }
}

/// Progress in `[0, 1]` as a percentage with at most two decimals and no trailing zeros, as
/// Hadoop's `###.##%` pattern prints it: `0%`, `50%`, `12.35%`, `100%`.
pub fn format_progress(progress: f32) -> String {
    let text = format!("{:.2}", f64::from(progress) * 100.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}

/// A time in ms since the Unix epoch as Hadoop's CLI prints dates, in UTC:
/// `Tue Nov 14 22:13:20 +0000 2023`. Zero and negative times (never set, or still running)
/// print as `N/A`.
pub fn format_time(epoch_ms: i64) -> String {
    const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    if epoch_ms <= 0 {
        return NOT_AVAILABLE.to_owned();
    }
    let seconds = epoch_ms / 1000;
    let days = seconds / 86_400;
    let of_day = seconds % 86_400;
    let (year, month, day) = civil_date(days);
    // 1970-01-01 was a Thursday.
    let weekday = WEEKDAYS[((days + 4) % 7) as usize];
    format!(
        "{weekday} {} {day:02} {:02}:{:02}:{:02} +0000 {year}",
        MONTHS[(month - 1) as usize],
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The proleptic Gregorian (year, month 1..=12, day 1..=31) of a non-negative number of days
/// since 1970-01-01.
///
/// Counts in 400-year eras starting on March 1st, so that the leap day is the last day of its
/// year and every era has the same 146,097 days.
fn civil_date(days: i64) -> (i64, i64, i64) {
    // Days from 0000-03-01 to 1970-01-01.
    let shifted = days + 719_468;
    let era = shifted / 146_097;
    let day_of_era = shifted % 146_097;
    // Remove the leap days before this day to count years of 365 days.
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months from March: 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 28/29 fit 153 days per 5.
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = era * 400 + year_of_era + i64::from(month <= 2);
    (year, month, day)
}

/// An application id in Hadoop's form; `N/A` when absent or invalid, since a listing should
/// still show the rest of the row.
pub fn application_id_text(id: Option<&pb::ApplicationIdProto>) -> String {
    id.and_then(|id| ApplicationId::try_from(*id).ok())
        .map_or_else(|| NOT_AVAILABLE.to_owned(), |id| id.to_string())
}

/// An application attempt id in Hadoop's form; `N/A` when absent or invalid.
pub fn attempt_id_text(id: Option<&pb::ApplicationAttemptIdProto>) -> String {
    id.and_then(|id| ApplicationAttemptId::try_from(*id).ok())
        .map_or_else(|| NOT_AVAILABLE.to_owned(), |id| id.to_string())
}

/// A container id in Hadoop's form; `N/A` when absent or invalid.
pub fn container_id_text(id: Option<&pb::ContainerIdProto>) -> String {
    id.and_then(|id| ContainerId::try_from(*id).ok())
        .map_or_else(|| NOT_AVAILABLE.to_owned(), |id| id.to_string())
}

/// A node id as `host:port`; `N/A` when absent or invalid.
pub fn node_id_text(id: Option<&pb::NodeIdProto>) -> String {
    id.and_then(|id| NodeId::try_from(id.clone()).ok())
        .map_or_else(|| NOT_AVAILABLE.to_owned(), |id| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_prints_as_a_percentage_with_at_most_two_decimals() {
        for (progress, expected) in [
            (0.0, "0%"),
            (0.5, "50%"),
            (0.1, "10%"),
            (0.123_456, "12.35%"),
            (0.125, "12.5%"),
            (1.0, "100%"),
        ] {
            assert_eq!(format_progress(progress), expected, "progress {progress}");
        }
    }

    #[test]
    fn times_print_as_utc_dates_and_unset_times_as_not_available() {
        assert_eq!(format_time(0), "N/A");
        assert_eq!(format_time(-1), "N/A");
        assert_eq!(format_time(1_000), "Thu Jan 01 00:00:01 +0000 1970");
        assert_eq!(
            format_time(1_700_000_000_123),
            "Tue Nov 14 22:13:20 +0000 2023"
        );
        // A leap day, and the day after it.
        assert_eq!(
            format_time(951_782_400_000),
            "Tue Feb 29 00:00:00 +0000 2000"
        );
        assert_eq!(
            format_time(951_868_800_000),
            "Wed Mar 01 00:00:00 +0000 2000"
        );
    }

    #[test]
    fn dates_agree_with_the_time_crate_over_three_centuries() {
        // Steps of 3 days, 7 minutes and 11 s walk every weekday, month and leap rule.
        let step_ms = (3 * 86_400 + 7 * 60 + 11) * 1000;
        let mut ms = 1_000;
        while ms < 10_000_000_000_000 {
            let at = time::OffsetDateTime::from_unix_timestamp(ms / 1000).unwrap();
            let expected = format!(
                "{:.3} {:.3} {:02} {:02}:{:02}:{:02} +0000 {}",
                at.weekday().to_string(),
                at.month().to_string(),
                at.day(),
                at.hour(),
                at.minute(),
                at.second(),
                at.year()
            );
            assert_eq!(format_time(ms), expected, "at {ms} ms");
            ms += step_ms;
        }
    }

    #[test]
    fn ids_print_in_hadoop_form_or_as_not_available() {
        let app = pb::ApplicationIdProto {
            id: 7,
            cluster_timestamp: 1_700_000_000_000,
        };
        assert_eq!(
            application_id_text(Some(&app)),
            "application_1700000000000_0007"
        );
        assert_eq!(application_id_text(None), "N/A");
        let negative = pb::ApplicationIdProto {
            id: -1,
            cluster_timestamp: 1,
        };
        assert_eq!(application_id_text(Some(&negative)), "N/A");
        let node = pb::NodeIdProto {
            host: "nm1.example.com".to_owned(),
            port: 8041,
        };
        assert_eq!(node_id_text(Some(&node)), "nm1.example.com:8041");
    }
}

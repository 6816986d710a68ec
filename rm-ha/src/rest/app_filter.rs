//! [`AppFilter`]: the query parameters of `GET /ws/v1/cluster/apps`, checked and applied.

use yarn_proto::pb;

use crate::operations::RmError;

/// The application states a query may name, as Hadoop spells them. NEW and NEW_SAVING exist in
/// Hadoop but never in yarn-ha (an application is SUBMITTED once stored), so they select none.
pub(super) const APP_STATES: [&str; 8] = [
    "NEW",
    "NEW_SAVING",
    "SUBMITTED",
    "ACCEPTED",
    "RUNNING",
    "FINISHED",
    "FAILED",
    "KILLED",
];

/// The final statuses a query may name.
const FINAL_STATUSES: [&str; 4] = ["UNDEFINED", "SUCCEEDED", "FAILED", "KILLED"];

/// What one `/apps` query asks for.
///
/// States, users, queues and application types go to the operation as the client protocol's
/// filter; the rest (final status, time ranges, tags, name, limit) is applied here to the
/// reports it returns, which come newest first. Every parameter is checked: an unknown state,
/// a time that is not a number or a limit below 1 is a 400 naming the parameter, as in Hadoop;
/// parameters Hadoop has and yarn-ha does not filter by are refused, not ignored.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct AppFilter {
    states: Vec<pb::YarnApplicationStateProto>,
    final_status: Option<pb::FinalApplicationStatusProto>,
    user: Option<String>,
    queue: Option<String>,
    limit: Option<usize>,
    started: TimeRange,
    finished: TimeRange,
    types: Vec<String>,
    tags: Vec<String>,
    name: Option<String>,
}

/// A `...TimeBegin` / `...TimeEnd` pair, in ms since the epoch, both ends included.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct TimeRange {
    begin: Option<i64>,
    end: Option<i64>,
}

impl TimeRange {
    fn admits(self, time: i64) -> bool {
        self.begin.is_none_or(|begin| time >= begin) && self.end.is_none_or(|end| time <= end)
    }
}

impl AppFilter {
    /// Checks the query's `(name, value)` pairs.
    ///
    /// # Errors
    ///
    /// [`RmError::InvalidRequest`] naming the first parameter that is wrong.
    pub(crate) fn parse(query: &[(String, String)]) -> Result<Self, RmError> {
        let mut filter = Self::default();
        for (name, value) in query {
            match name.as_str() {
                "states" | "state" => {
                    for state in list(value) {
                        filter.states.push(app_state(&state)?);
                    }
                }
                "finalStatus" => filter.final_status = Some(final_status(value)?),
                "user" => filter.user = Some(value.clone()),
                "queue" => filter.queue = Some(value.clone()),
                "limit" => filter.limit = Some(limit(value)?),
                "startedTimeBegin" => filter.started.begin = Some(time(name, value)?),
                "startedTimeEnd" => filter.started.end = Some(time(name, value)?),
                "finishedTimeBegin" => filter.finished.begin = Some(time(name, value)?),
                "finishedTimeEnd" => filter.finished.end = Some(time(name, value)?),
                "applicationTypes" => filter.types.extend(list(value)),
                "applicationTags" => filter.tags.extend(list(value).map(|t| t.to_lowercase())),
                "name" => filter.name = Some(value.clone()),
                // Hadoop's knob to leave out resource requests: yarn-ha's answer carries none.
                "deSelects" => {}
                // Pseudo authentication, read by the caller's extractor.
                "user.name" => {}
                other => {
                    return Err(RmError::invalid(
                        "query",
                        format!("the query parameter {other:?} is not supported by /apps"),
                    ));
                }
            }
        }
        for (name, range) in [
            ("startedTime", filter.started),
            ("finishedTime", filter.finished),
        ] {
            if let (Some(begin), Some(end)) = (range.begin, range.end)
                && end < begin
            {
                return Err(RmError::invalid(
                    "query",
                    format!("{name}End {end} must be greater than or equal to {name}Begin {begin}"),
                ));
            }
        }
        Ok(filter)
    }

    /// The client protocol's filter for the parts the operation applies.
    pub(crate) fn request(&self) -> pb::GetApplicationsRequestProto {
        pb::GetApplicationsRequestProto {
            application_states: self.states.iter().map(|state| (*state).into()).collect(),
            users: self.user.iter().cloned().collect(),
            queues: self.queue.iter().cloned().collect(),
            application_types: self.types.clone(),
            ..Default::default()
        }
    }

    /// Whether `report` passes the parts applied here.
    pub(crate) fn admits(&self, report: &pb::ApplicationReportProto) -> bool {
        self.final_status
            .is_none_or(|status| report.final_application_status() == status)
            && self.started.admits(report.start_time)
            && self.finished.admits(report.finish_time)
            && (self.tags.is_empty()
                || self
                    .tags
                    .iter()
                    .any(|tag| report.application_tags.contains(tag)))
            && self.name.as_ref().is_none_or(|name| &report.name == name)
    }

    /// How many applications at most.
    pub(crate) fn limit(&self) -> usize {
        self.limit.unwrap_or(usize::MAX)
    }
}

fn list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
}

/// The wire state for `name`, any case.
///
/// # Errors
///
/// [`RmError::InvalidRequest`] on `states` for a state Hadoop does not have.
pub(super) fn app_state(name: &str) -> Result<pb::YarnApplicationStateProto, RmError> {
    let upper = name.to_uppercase();
    if !APP_STATES.contains(&upper.as_str()) {
        return Err(RmError::invalid(
            "states",
            format!(
                "Invalid application-state {name} specified. It should be one of {}",
                APP_STATES.join(", ")
            ),
        ));
    }
    pb::YarnApplicationStateProto::from_str_name(&upper)
        .ok_or_else(|| RmError::internal(format!("application state {upper} has no wire form")))
}

fn final_status(name: &str) -> Result<pb::FinalApplicationStatusProto, RmError> {
    let upper = name.to_uppercase();
    if !FINAL_STATUSES.contains(&upper.as_str()) {
        return Err(RmError::invalid(
            "finalStatus",
            format!(
                "Invalid final-status {name} specified. It should be one of {}",
                FINAL_STATUSES.join(", ")
            ),
        ));
    }
    pb::FinalApplicationStatusProto::from_str_name(&format!("APP_{upper}"))
        .ok_or_else(|| RmError::internal(format!("final status {upper} has no wire form")))
}

fn limit(value: &str) -> Result<usize, RmError> {
    match value.parse::<i64>() {
        Ok(limit) if limit > 0 => Ok(usize::try_from(limit).unwrap_or(usize::MAX)),
        _ => Err(RmError::invalid(
            "limit",
            format!("limit value must be greater then 0, not {value:?}"),
        )),
    }
}

fn time(name: &str, value: &str) -> Result<i64, RmError> {
    match value.parse::<i64>() {
        Ok(time) if time >= 0 => Ok(time),
        _ => Err(RmError::invalid(
            "query",
            format!("{name} must be a time in ms since the epoch, at least 0, not {value:?}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query;

    fn report(
        state: pb::YarnApplicationStateProto,
        start: i64,
        tags: &[&str],
    ) -> pb::ApplicationReportProto {
        pb::ApplicationReportProto {
            yarn_application_state: state.into(),
            start_time: start,
            application_tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
            name: "job".to_owned(),
            ..Default::default()
        }
    }

    #[test]
    fn states_users_queues_and_types_go_to_the_operation() {
        let filter = AppFilter::parse(&query(&[
            ("states", "running,Accepted"),
            ("state", "FINISHED"),
            ("user", "alice"),
            ("queue", "q1"),
            ("applicationTypes", "MAPREDUCE,spark"),
        ]))
        .unwrap();
        let request = filter.request();
        assert_eq!(
            request.application_states,
            [
                pb::YarnApplicationStateProto::Running as i32,
                pb::YarnApplicationStateProto::Accepted as i32,
                pb::YarnApplicationStateProto::Finished as i32,
            ]
        );
        assert_eq!(request.users, ["alice"]);
        assert_eq!(request.queues, ["q1"]);
        assert_eq!(request.application_types, ["MAPREDUCE", "spark"]);
    }

    #[test]
    fn time_ranges_tags_and_names_are_applied_to_the_reports() {
        let filter = AppFilter::parse(&query(&[
            ("startedTimeBegin", "100"),
            ("startedTimeEnd", "200"),
            ("applicationTags", "Nightly"),
            ("name", "job"),
        ]))
        .unwrap();
        let running = pb::YarnApplicationStateProto::Running;
        assert!(filter.admits(&report(running, 150, &["nightly"])));
        assert!(
            !filter.admits(&report(running, 250, &["nightly"])),
            "too late"
        );
        assert!(!filter.admits(&report(running, 150, &[])), "untagged");
        let any_tag = AppFilter::parse(&query(&[("applicationTags", "nightly,hourly")])).unwrap();
        assert!(
            any_tag.admits(&report(running, 0, &["hourly"])),
            "any listed tag matches"
        );
    }

    #[test]
    fn every_bad_parameter_is_named() {
        for (pairs, field, needle) in [
            (vec![("states", "SLEEPING")], "states", "SLEEPING"),
            (vec![("finalStatus", "GREAT")], "finalStatus", "GREAT"),
            (vec![("limit", "0")], "limit", "limit"),
            (vec![("limit", "ten")], "limit", "ten"),
            (
                vec![("startedTimeBegin", "-1")],
                "query",
                "startedTimeBegin",
            ),
            (
                vec![("finishedTimeBegin", "9"), ("finishedTimeEnd", "3")],
                "query",
                "finishedTimeEnd",
            ),
            (vec![("colour", "blue")], "query", "colour"),
        ] {
            let err = AppFilter::parse(&query(&pairs)).unwrap_err();
            assert!(
                matches!(&err, RmError::InvalidRequest { field: f, message } if *f == field && message.contains(needle)),
                "{pairs:?}: {err:?}"
            );
        }
    }

    #[test]
    fn a_limit_bounds_the_answer() {
        assert_eq!(
            AppFilter::parse(&query(&[("limit", "2")])).unwrap().limit(),
            2
        );
        assert_eq!(AppFilter::parse(&[]).unwrap().limit(), usize::MAX);
    }
}

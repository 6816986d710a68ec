//! [`AppStatistics`]: `/ws/v1/cluster/appstatistics`, how many applications are in each state.

use serde::Serialize;
use yarn_proto::pb;

use super::app_filter::{APP_STATES, app_state};
use crate::operations::RmError;

/// What one query asks for: the states to count (every state when none is named) and at most
/// one application type (any, written `*`, when none is named), as Hadoop allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AppStatistics {
    states: Vec<pb::YarnApplicationStateProto>,
    application_type: Option<String>,
}

/// `{"appStatInfo": {"statItem": [{"state", "type", "count"}, ...]}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct AppStatisticsResponse {
    #[serde(rename = "appStatInfo")]
    app_stat_info: StatItems,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct StatItems {
    #[serde(rename = "statItem")]
    stat_item: Vec<StatItem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct StatItem {
    state: &'static str,
    #[serde(rename = "type")]
    application_type: String,
    count: u64,
}

impl AppStatistics {
    /// Checks the query's `states` and `applicationTypes`.
    ///
    /// # Errors
    ///
    /// [`RmError::InvalidRequest`] for an unknown state, more than one type or another
    /// parameter.
    pub(crate) fn parse(query: &[(String, String)]) -> Result<Self, RmError> {
        let mut states = Vec::new();
        let mut types = Vec::new();
        for (name, value) in query {
            let items = value
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty());
            match name.as_str() {
                "states" => {
                    for state in items {
                        states.push(app_state(state)?);
                    }
                }
                "applicationTypes" => types.extend(items.map(str::to_lowercase)),
                "user.name" => {}
                other => {
                    return Err(RmError::invalid(
                        "query",
                        format!("the query parameter {other:?} is not supported by /appstatistics"),
                    ));
                }
            }
        }
        if types.len() > 1 {
            return Err(RmError::invalid(
                "applicationTypes",
                format!(
                    "# of applicationTypes = {}, we temporarily support at most one \
                     applicationType",
                    types.len()
                ),
            ));
        }
        if states.is_empty() {
            states = APP_STATES
                .iter()
                .filter_map(|state| pb::YarnApplicationStateProto::from_str_name(state))
                .collect();
        }
        Ok(Self {
            states,
            application_type: types.pop(),
        })
    }

    /// The application types counted: the one asked for, or every type.
    pub(crate) fn application_types(&self) -> &[String] {
        self.application_type.as_slice()
    }

    /// The counts of the applications in `states` (one state per application, already of the
    /// type asked for), one item per state asked for.
    pub(crate) fn count(&self, states: &[pb::YarnApplicationStateProto]) -> AppStatisticsResponse {
        let stat_item = self
            .states
            .iter()
            .map(|state| StatItem {
                state: state.as_str_name(),
                application_type: self
                    .application_type
                    .clone()
                    .unwrap_or_else(|| "*".to_owned()),
                count: states.iter().filter(|of_one| *of_one == state).count() as u64,
            })
            .collect();
        AppStatisticsResponse {
            app_stat_info: StatItems { stat_item },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rest::query;

    #[test]
    fn counts_each_state_asked_for_including_zeros() {
        let statistics = AppStatistics::parse(&query(&[
            ("states", "running,killed"),
            ("applicationTypes", "YARN"),
        ]))
        .unwrap();
        assert_eq!(statistics.application_types(), ["yarn"]);
        let states = [
            pb::YarnApplicationStateProto::Running,
            pb::YarnApplicationStateProto::Running,
            pb::YarnApplicationStateProto::Finished,
        ];
        let body = serde_json::to_value(statistics.count(&states)).unwrap();
        assert_eq!(
            body,
            json!({"appStatInfo": {"statItem": [
                {"state": "RUNNING", "type": "yarn", "count": 2},
                {"state": "KILLED", "type": "yarn", "count": 0},
            ]}})
        );
    }

    #[test]
    fn without_states_every_state_is_counted_for_any_type() {
        let statistics = AppStatistics::parse(&[]).unwrap();
        let body = serde_json::to_value(statistics.count(&[])).unwrap();
        let items = body["appStatInfo"]["statItem"].as_array().unwrap();
        assert_eq!(items.len(), 8);
        assert!(items.iter().all(|item| item["type"] == "*"));
    }

    #[test]
    fn more_than_one_type_or_an_unknown_state_is_refused() {
        for (pairs, field) in [
            (vec![("applicationTypes", "a,b")], "applicationTypes"),
            (vec![("states", "DREAMING")], "states"),
        ] {
            let err = AppStatistics::parse(&query(&pairs)).unwrap_err();
            assert!(
                matches!(&err, RmError::InvalidRequest { field: f, .. } if *f == field),
                "{err:?}"
            );
        }
    }
}

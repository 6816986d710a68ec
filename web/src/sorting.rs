//! [`Sorting`]: how a web UI table is sorted, read from and written into its page's query, so
//! tables sort by a click on a column's heading without any script.

use maud::{Markup, html};

/// A query parameter of a page that did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("query parameter {parameter}={value:?} is not one of {expected}")]
pub struct BadQueryParameter {
    /// The parameter.
    pub parameter: &'static str,
    /// What the query held.
    pub value: String,
    /// What it may hold.
    pub expected: String,
}

/// The column a table is sorted by (`sort=`) and the direction (`order=asc|desc`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sorting {
    /// The column's key, one of the table's.
    pub column: &'static str,
    /// Largest first.
    pub descending: bool,
}

impl Sorting {
    /// Reads `sort` and `order` from `query`; without them, `default`.
    ///
    /// # Errors
    ///
    /// [`BadQueryParameter`] for a column not in `columns` or an order other than `asc` and
    /// `desc`, naming what is allowed.
    pub fn from_query(
        query: &[(String, String)],
        columns: &[&'static str],
        default: Sorting,
    ) -> Result<Self, BadQueryParameter> {
        let mut sorting = default;
        for (name, value) in query {
            match name.as_str() {
                "sort" => {
                    sorting.column = columns
                        .iter()
                        .find(|column| **column == value.as_str())
                        .ok_or_else(|| BadQueryParameter {
                            parameter: "sort",
                            value: value.clone(),
                            expected: columns.join(", "),
                        })?;
                }
                "order" => {
                    sorting.descending = match value.as_str() {
                        "asc" => false,
                        "desc" => true,
                        _ => {
                            return Err(BadQueryParameter {
                                parameter: "order",
                                value: value.clone(),
                                expected: "asc, desc".to_owned(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(sorting)
    }

    /// Orders `ordering` (ascending) by this sorting's direction.
    pub fn apply(&self, ordering: std::cmp::Ordering) -> std::cmp::Ordering {
        if self.descending {
            ordering.reverse()
        } else {
            ordering
        }
    }

    /// The heading of `column`, titled `text`: a link to `path` sorted by it, ascending, or
    /// reversed when the table is sorted by it already, with an arrow showing the current
    /// direction. `keep` are the page's other query parameters, carried over.
    pub fn heading(
        &self,
        path: &str,
        keep: &[(&str, &str)],
        column: &'static str,
        text: &str,
    ) -> Markup {
        let current = self.column == column;
        let order = if current && !self.descending {
            "desc"
        } else {
            "asc"
        };
        let mut pairs: Vec<(&str, &str)> = keep.to_vec();
        pairs.push(("sort", column));
        pairs.push(("order", order));
        // Plain keys and values from the page itself: encoding cannot fail.
        let query = serde_urlencoded::to_string(&pairs).unwrap_or_default();
        html! {
            a href=(format!("{path}?{query}")) {
                (text)
                @if current { @if self.descending { " \u{25BC}" } @else { " \u{25B2}" } }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLUMNS: &[&str] = &["id", "user"];
    const DEFAULT: Sorting = Sorting {
        column: "id",
        descending: true,
    };

    fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn the_query_names_the_column_and_order() {
        let sorting = Sorting::from_query(
            &query(&[("sort", "user"), ("order", "asc")]),
            COLUMNS,
            DEFAULT,
        )
        .unwrap();
        assert_eq!(
            sorting,
            Sorting {
                column: "user",
                descending: false
            }
        );
        assert_eq!(Sorting::from_query(&[], COLUMNS, DEFAULT).unwrap(), DEFAULT);
    }

    #[test]
    fn unknown_columns_and_orders_are_refused_with_what_is_allowed() {
        let err = Sorting::from_query(&query(&[("sort", "memory")]), COLUMNS, DEFAULT).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"query parameter sort="memory" is not one of id, user"#
        );
        let err = Sorting::from_query(&query(&[("order", "up")]), COLUMNS, DEFAULT).unwrap_err();
        assert_eq!(err.parameter, "order");
    }

    #[test]
    fn a_heading_reverses_the_current_column_and_keeps_the_filter() {
        let heading = DEFAULT
            .heading("/cluster/apps", &[("state", "RUNNING")], "id", "ID")
            .into_string();
        assert!(
            heading.contains(r#"href="/cluster/apps?state=RUNNING&amp;sort=id&amp;order=asc""#),
            "{heading}"
        );
        assert!(heading.contains('\u{25BC}'), "{heading}");
        let other = DEFAULT
            .heading("/cluster/apps", &[], "user", "User")
            .into_string();
        assert!(other.contains("sort=user&amp;order=asc"), "{other}");
        assert!(!other.contains('\u{25BC}'), "{other}");
    }

    #[test]
    fn descending_reverses_the_order() {
        assert_eq!(
            DEFAULT.apply(std::cmp::Ordering::Less),
            std::cmp::Ordering::Greater
        );
    }
}

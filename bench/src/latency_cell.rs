//! [`latency_cell`]: how the benchmarks' tables print one latency figure.

use yarn_minicluster::LatencySummary;

/// A latency column: the figure `pick` takes from `summary`, in milliseconds with two
/// decimals, or `-` when nothing was measured.
pub(crate) fn latency_cell(
    summary: Option<&LatencySummary>,
    pick: fn(&LatencySummary) -> f64,
) -> String {
    summary.map_or_else(|| "-".to_owned(), |summary| format!("{:.2}", pick(summary)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_has_two_decimals_or_a_dash() {
        let summary = LatencySummary {
            count: 2,
            p50_ms: 1.0,
            p99_ms: 2.345,
            max_ms: 3.0,
        };
        assert_eq!(latency_cell(Some(&summary), |s| s.p99_ms), "2.35");
        assert_eq!(latency_cell(None, |s| s.p50_ms), "-");
    }
}

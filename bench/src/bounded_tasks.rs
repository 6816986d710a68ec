//! [`run_bounded`]: many calls to a cluster, a bounded number in flight at a time.

use std::future::Future;

use anyhow::Context;
use tokio::task::JoinSet;

/// Runs `task(item)` as a Tokio task for every item, at most `limit` (at least one) at a time,
/// and returns their outputs in the order they finished.
///
/// Guarantees: on the first error the tasks still running are aborted and the error returned;
/// no task outlives the call.
///
/// # Errors
///
/// The first task's error, or a task that panicked.
pub(crate) async fn run_bounded<I, T, F, Fut>(
    items: I,
    limit: usize,
    mut task: F,
) -> anyhow::Result<Vec<T>>
where
    I: IntoIterator,
    F: FnMut(I::Item) -> Fut,
    Fut: Future<Output = anyhow::Result<T>> + Send + 'static,
    T: Send + 'static,
{
    let mut running = JoinSet::new();
    let mut outputs = Vec::new();
    for item in items {
        if running.len() >= limit.max(1) {
            if let Some(joined) = running.join_next().await {
                outputs.push(joined.context("a benchmark task failed")??);
            }
        }
        running.spawn(task(item));
    }
    while let Some(joined) = running.join_next().await {
        outputs.push(joined.context("a benchmark task failed")??);
    }
    Ok(outputs)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn at_most_the_limit_runs_at_once_and_every_item_runs() {
        let (now, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let mut outputs = run_bounded(0..20, 3, |i| {
            let (now, peak) = (now.clone(), peak.clone());
            async move {
                let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(running, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(2)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                Ok(i * 2)
            }
        })
        .await
        .unwrap();
        outputs.sort_unstable();
        assert_eq!(outputs, (0..20).map(|i| i * 2).collect::<Vec<_>>());
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn the_first_error_ends_the_run() {
        let err = run_bounded(0..10, 2, |i| async move {
            anyhow::ensure!(i != 4, "item {i} failed");
            Ok(i)
        })
        .await
        .unwrap_err();
        assert_eq!(err.to_string(), "item 4 failed");
    }
}

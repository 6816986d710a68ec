//! [`RefreshLimit`]: when `yarn-ha top` has shown enough, apart from `q` and signals.

use std::num::NonZeroU64;

/// Counts refreshes and says when `yarn-ha top` should end on its own:
///
/// - with `--iterations N`, after N refreshes, whatever its input does (a script may have
///   none);
/// - without it, once its input has ended (stdin at end of file) and at least one refresh has
///   been shown, so that `yarn-ha top < /dev/null` prints one frame and ends rather than
///   running for ever unseen.
///
/// A refresh counts whether or not it reached the ResourceManager: its frame was shown either
/// way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshLimit {
    iterations: Option<NonZeroU64>,
    refreshes: u64,
    input_ended: bool,
}

impl RefreshLimit {
    /// A limit of `iterations` refreshes, or of the input's end when `None`.
    pub fn new(iterations: Option<NonZeroU64>) -> Self {
        Self {
            iterations,
            refreshes: 0,
            input_ended: false,
        }
    }

    /// Records a refresh shown.
    pub fn refreshed(&mut self) {
        self.refreshes = self.refreshes.saturating_add(1);
    }

    /// Records that the input ended: no key will come any more.
    pub fn input_ended(&mut self) {
        self.input_ended = true;
    }

    /// Whether `yarn-ha top` should end now.
    pub fn reached(&self) -> bool {
        match self.iterations {
            Some(iterations) => self.refreshes >= iterations.get(),
            None => self.input_ended && self.refreshes > 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_end_after_that_many_refreshes_whatever_the_input() {
        let mut limit = RefreshLimit::new(NonZeroU64::new(2));
        limit.input_ended();
        limit.refreshed();
        assert!(
            !limit.reached(),
            "the end of the input does not stop a counted run"
        );
        limit.refreshed();
        assert!(limit.reached());
    }

    #[test]
    fn without_iterations_the_end_of_the_input_ends_after_one_refresh() {
        let mut limit = RefreshLimit::new(None);
        for _ in 0..100 {
            limit.refreshed();
        }
        assert!(!limit.reached(), "no limit while input may come");
        let mut limit = RefreshLimit::new(None);
        limit.input_ended();
        assert!(!limit.reached(), "not before the first frame");
        limit.refreshed();
        assert!(limit.reached());
    }
}

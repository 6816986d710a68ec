//! [`TaskStream`]: the endless stream of short tasks a simulated ApplicationMaster runs, each
//! typed GUARANTEED or OPPORTUNISTIC.

use std::collections::VecDeque;

use yarn_nodemanager::container_scheduler::ExecutionType;

/// An endless stream of tasks, `percent` of them OPPORTUNISTIC and spread evenly (every
/// prefix of the stream holds the share rounded down), and the tasks still waiting for a
/// container, in order: a task that lost its container (killed, refused, shed) goes back to
/// the front.
#[derive(Debug, Clone)]
pub struct TaskStream {
    percent: u64,
    generated: u64,
    pending: VecDeque<ExecutionType>,
}

impl TaskStream {
    /// A stream with `percent` (at most 100) OPPORTUNISTIC tasks.
    pub fn new(percent: u32) -> Self {
        Self {
            percent: u64::from(percent.min(100)),
            generated: 0,
            pending: VecDeque::new(),
        }
    }

    /// The type of the stream's task number `n`: OPPORTUNISTIC when it raises the count of
    /// OPPORTUNISTIC tasks in the prefix, so the first `m` tasks hold `m * percent / 100`.
    fn type_of(&self, n: u64) -> ExecutionType {
        if (n + 1) * self.percent / 100 > n * self.percent / 100 {
            ExecutionType::Opportunistic
        } else {
            ExecutionType::Guaranteed
        }
    }

    fn generate(&mut self) {
        let next = self.type_of(self.generated);
        self.pending.push_back(next);
        self.generated += 1;
    }

    /// How many of the first `window` waiting tasks are GUARANTEED and OPPORTUNISTIC: what
    /// the ApplicationMaster asks for.
    pub fn window_counts(&mut self, window: usize) -> (u32, u32) {
        while self.pending.len() < window {
            self.generate();
        }
        let opportunistic = self
            .pending
            .iter()
            .take(window)
            .filter(|kind| **kind == ExecutionType::Opportunistic)
            .count();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (count(window - opportunistic), count(opportunistic))
    }

    /// Gives a container of `kind` to the first waiting task of that kind, drawing new tasks
    /// from the stream if none waits; `false` when the stream has no task of that kind at all
    /// (the container is not needed).
    pub fn take(&mut self, kind: ExecutionType) -> bool {
        let exists = match kind {
            ExecutionType::Opportunistic => self.percent > 0,
            ExecutionType::Guaranteed => self.percent < 100,
        };
        if !exists {
            return false;
        }
        loop {
            if let Some(index) = self.pending.iter().position(|waiting| *waiting == kind) {
                self.pending.remove(index);
                return true;
            }
            self.generate();
        }
    }

    /// Puts a task of `kind` that lost its container back at the front.
    pub fn retry(&mut self, kind: ExecutionType) {
        self.pending.push_front(kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_is_exact_in_every_window_and_spread_evenly() {
        let mut stream = TaskStream::new(50);
        assert_eq!(stream.window_counts(10), (5, 5));
        let mut stream = TaskStream::new(30);
        assert_eq!(stream.window_counts(100), (70, 30));
        let first: Vec<ExecutionType> = stream.pending.iter().take(4).copied().collect();
        assert_eq!(
            first,
            [
                ExecutionType::Guaranteed,
                ExecutionType::Guaranteed,
                ExecutionType::Guaranteed,
                ExecutionType::Opportunistic
            ]
        );
        assert_eq!(TaskStream::new(0).window_counts(8), (8, 0));
        assert_eq!(TaskStream::new(100).window_counts(8), (0, 8));
    }

    #[test]
    fn a_container_goes_to_the_first_waiting_task_of_its_kind() {
        let mut stream = TaskStream::new(50);
        // G O G O
        assert_eq!(stream.window_counts(4), (2, 2));
        assert!(stream.take(ExecutionType::Opportunistic));
        assert!(stream.take(ExecutionType::Opportunistic));
        // G G, refilled from the stream with G O.
        assert_eq!(stream.window_counts(4), (3, 1));
        assert!(stream.take(ExecutionType::Opportunistic));
        // No OPPORTUNISTIC task waits: the next one is drawn from the stream, and the
        // GUARANTEED ones before it wait, so a window of unserved GUARANTEED tasks builds up.
        assert!(stream.take(ExecutionType::Opportunistic));
        assert_eq!(stream.window_counts(4), (4, 0));
        assert!(stream.take(ExecutionType::Guaranteed));
        assert_eq!(stream.pending.len(), 3);
    }

    #[test]
    fn a_task_that_lost_its_container_waits_at_the_front() {
        let mut stream = TaskStream::new(0);
        assert_eq!(stream.window_counts(2), (2, 0));
        stream.retry(ExecutionType::Opportunistic);
        assert_eq!(stream.window_counts(2), (1, 1));
    }

    #[test]
    fn a_kind_the_stream_never_has_takes_nothing() {
        assert!(!TaskStream::new(0).take(ExecutionType::Opportunistic));
        assert!(!TaskStream::new(100).take(ExecutionType::Guaranteed));
        assert!(TaskStream::new(100).take(ExecutionType::Opportunistic));
    }
}

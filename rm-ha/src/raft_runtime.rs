//! [`RmRuntime`]: openraft's tokio runtime, with every task it spawns catching its own panic.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use openraft::{AsyncRuntime, OptionalSend, TokioInstant, TokioRuntime};

/// The runtime the replica group's Raft runs on: [`TokioRuntime`] in every respect but one.
/// A task openraft spawns (its core, its replication streams) that panics ends with
/// [`RaftTaskError::Panicked`], which openraft reads as a panic exactly as it reads tokio's
/// `JoinError`, instead of unwinding into tokio.
///
/// Why: the deterministic simulation builds tokio with `--cfg tokio_unstable` so that turmoil
/// seeds each simulated host's runtime, and turmoil then also asks tokio to shut a host's
/// runtime down on any unhandled task panic. tokio's current-thread scheduler cannot do that
/// while the dropped tasks wake others, and aborts the whole process. openraft's own assertions
/// do panic when a planted storage bug corrupts a log, and the simulation must report that seed
/// rather than die. In a replica nothing changes: tokio, too, ends a panicking task with an
/// error its join handle returns.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RmRuntime;

/// How a task spawned on [`RmRuntime`] ended without its output.
#[derive(Debug)]
pub enum RaftTaskError {
    /// It panicked, with this message when the panic carried one.
    Panicked(String),
    /// tokio cancelled it (its runtime shut down).
    Cancelled(tokio::task::JoinError),
}

impl fmt::Display for RaftTaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Panicked(message) => write!(f, "a Raft task panicked: {message}"),
            Self::Cancelled(err) => write!(f, "a Raft task was cancelled: {err}"),
        }
    }
}

/// A spawned task's handle: its output, or how it ended without one.
pub struct RaftTask<T>(tokio::task::JoinHandle<Result<T, String>>);

impl<T> Future for RaftTask<T> {
    type Output = Result<T, RaftTaskError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map(|joined| match joined {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(message)) => Err(RaftTaskError::Panicked(message)),
            Err(err) => Err(RaftTaskError::Cancelled(err)),
        })
    }
}

/// A future whose panic while being polled becomes its output. Boxed, so that no unsafe
/// pinning is needed; openraft spawns a handful of tasks per term, not per request.
struct PanicCaught<F>(Pin<Box<F>>);

impl<F: Future> Future for PanicCaught<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(poll) => poll.map(Ok),
            Err(panic) => Poll::Ready(Err(panic_message(panic.as_ref()))),
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|message| (*message).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

impl AsyncRuntime for RmRuntime {
    type JoinError = RaftTaskError;
    type JoinHandle<T: OptionalSend + 'static> = RaftTask<T>;
    type Sleep = <TokioRuntime as AsyncRuntime>::Sleep;
    type Instant = TokioInstant;
    type TimeoutError = <TokioRuntime as AsyncRuntime>::TimeoutError;
    type Timeout<R, T: Future<Output = R> + OptionalSend> =
        <TokioRuntime as AsyncRuntime>::Timeout<R, T>;
    type ThreadLocalRng = <TokioRuntime as AsyncRuntime>::ThreadLocalRng;
    type OneshotSender<T: OptionalSend> = <TokioRuntime as AsyncRuntime>::OneshotSender<T>;
    type OneshotReceiverError = <TokioRuntime as AsyncRuntime>::OneshotReceiverError;
    type OneshotReceiver<T: OptionalSend> = <TokioRuntime as AsyncRuntime>::OneshotReceiver<T>;

    fn spawn<T>(future: T) -> Self::JoinHandle<T::Output>
    where
        T: Future + OptionalSend + 'static,
        T::Output: OptionalSend + 'static,
    {
        RaftTask(tokio::spawn(PanicCaught(Box::pin(future))))
    }

    fn sleep(duration: Duration) -> Self::Sleep {
        TokioRuntime::sleep(duration)
    }

    fn sleep_until(deadline: Self::Instant) -> Self::Sleep {
        TokioRuntime::sleep_until(deadline)
    }

    fn timeout<R, F: Future<Output = R> + OptionalSend>(
        duration: Duration,
        future: F,
    ) -> Self::Timeout<R, F> {
        TokioRuntime::timeout(duration, future)
    }

    fn timeout_at<R, F: Future<Output = R> + OptionalSend>(
        deadline: Self::Instant,
        future: F,
    ) -> Self::Timeout<R, F> {
        TokioRuntime::timeout_at(deadline, future)
    }

    fn is_panic(join_error: &Self::JoinError) -> bool {
        matches!(join_error, RaftTaskError::Panicked(_))
    }

    fn thread_rng() -> Self::ThreadLocalRng {
        TokioRuntime::thread_rng()
    }

    fn oneshot<T>() -> (Self::OneshotSender<T>, Self::OneshotReceiver<T>)
    where
        T: OptionalSend,
    {
        TokioRuntime::oneshot()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_task_ends_with_its_message_and_others_with_their_output() {
        let panicked = RmRuntime::spawn(async { panic!("log reversion") }).await;
        match panicked {
            Err(err @ RaftTaskError::Panicked(_)) => {
                assert!(RmRuntime::is_panic(&err));
                assert!(err.to_string().contains("log reversion"), "{err}");
            }
            other => panic!("expected a panic, got {:?}", other),
        }
        assert_eq!(RmRuntime::spawn(async { 7 }).await.unwrap(), 7);
    }
}

//! A bound on the status message a server sends back, whatever the handler put in it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::HeaderValue;

/// The header carrying a gRPC status message, percent-encoded.
const GRPC_MESSAGE: &str = "grpc-message";

/// The longest status message a server sends, in bytes as it travels (percent-encoded). Every
/// refusal yarn-ha writes fits; a message quoting a caller's input at length does not, and a
/// megabyte echoed back (a 1 MB queue name once) made the client drop the whole answer for
/// exceeding its header limit.
pub const MAX_STATUS_MESSAGE_BYTES: usize = 4096;

/// What a cut message ends with, percent-encoded: ` ... (cut)`.
const CUT_MARK: &[u8] = b"%20...%20(cut)";

/// The layer every yarn-ha gRPC server is built with (`Server::builder().layer(...)`): each
/// answer passes through [`bound_status_message`]. Guarantee: no answer of such a server carries
/// a status message longer than [`MAX_STATUS_MESSAGE_BYTES`], so a caller's input echoed in an
/// error cannot break the caller's client.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoundStatusMessages;

impl<S> tower::Layer<S> for BoundStatusMessages {
    type Service = BoundStatusService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BoundStatusService { inner }
    }
}

/// A service whose answers' status messages are bounded; see [`BoundStatusMessages`].
#[derive(Debug, Clone)]
pub struct BoundStatusService<S> {
    inner: S,
}

impl<S, R, B> tower::Service<R> for BoundStatusService<S>
where
    S: tower::Service<R, Response = http::Response<B>>,
    S::Future: Send + 'static,
    B: 'static,
{
    type Response = http::Response<B>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        let answer = self.inner.call(request);
        Box::pin(async move { answer.await.map(bound_status_message) })
    }
}

/// `response` with its `grpc-message` cut to [`MAX_STATUS_MESSAGE_BYTES`], never inside a
/// `%XX` escape, and marked as cut.
pub fn bound_status_message<B>(mut response: http::Response<B>) -> http::Response<B> {
    let Some(value) = response.headers().get(GRPC_MESSAGE) else {
        return response;
    };
    if value.len() <= MAX_STATUS_MESSAGE_BYTES {
        return response;
    }
    let bytes = value.as_bytes();
    let mut cut = MAX_STATUS_MESSAGE_BYTES - CUT_MARK.len();
    // A '%' in the last two bytes kept starts an escape the cut would split: cut before it.
    if let Some(offset) = bytes[cut - 2..cut].iter().position(|byte| *byte == b'%') {
        cut = cut - 2 + offset;
    }
    // Nor inside a character: a UTF-8 continuation byte (`%80` to `%BF`) after the cut means
    // the escapes before it started that character; cut before them too.
    while cut >= 3 && continues_a_character(&bytes[cut..]) {
        cut -= 3;
    }
    let mut bounded = bytes[..cut].to_vec();
    bounded.extend_from_slice(CUT_MARK);
    // A prefix of a valid header value, plus ASCII, is a valid header value.
    if let Ok(bounded) = HeaderValue::from_bytes(&bounded) {
        response.headers_mut().insert(GRPC_MESSAGE, bounded);
    }
    response
}

/// Whether `rest` starts with the escape of a UTF-8 continuation byte.
fn continues_a_character(rest: &[u8]) -> bool {
    matches!(rest, [b'%', b'8' | b'9' | b'A' | b'B' | b'a' | b'b', _, ..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_message(message: &str) -> http::Response<()> {
        let status = tonic::Status::invalid_argument(message);
        let mut response = http::Response::new(());
        status
            .add_header(response.headers_mut())
            .expect("a status always makes headers");
        response
    }

    fn message_of(response: &http::Response<()>) -> String {
        tonic::Status::from_header_map(response.headers())
            .expect("a status")
            .message()
            .to_owned()
    }

    #[test]
    fn short_messages_pass_untouched() {
        let response = bound_status_message(with_message("queue \"q\" does not exist"));
        assert_eq!(message_of(&response), "queue \"q\" does not exist");
    }

    #[test]
    fn a_megabyte_echoed_back_is_cut_to_the_bound() {
        let echoed = format!("unknown queue {}", "q".repeat(1024 * 1024));
        let response = bound_status_message(with_message(&echoed));
        let header = response.headers().get(GRPC_MESSAGE).unwrap();
        assert!(header.len() <= MAX_STATUS_MESSAGE_BYTES, "{}", header.len());
        let message = message_of(&response);
        assert!(message.starts_with("unknown queue qqq"), "{message}");
        assert!(message.ends_with(" ... (cut)"), "{message}");
    }

    #[test]
    fn a_cut_never_splits_an_escape() {
        // Every character here travels as a %XX escape (or several), at every offset.
        for pad in 0..3 {
            let echoed = format!("{}{}", "a".repeat(pad), "é\n".repeat(10_000));
            let response = bound_status_message(with_message(&echoed));
            let header = response.headers().get(GRPC_MESSAGE).unwrap().as_bytes();
            let before_mark = &header[..header.len() - CUT_MARK.len()];
            let tail = &before_mark[before_mark.len().saturating_sub(2)..];
            assert!(
                !tail.contains(&b'%'),
                "pad {pad}: {:?}",
                String::from_utf8_lossy(tail)
            );
            assert!(message_of(&response).ends_with(" ... (cut)"));
        }
    }
}

//! [`blocking_json`]: a list answer serialized off the replica's async workers.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::operations::RmError;

/// `value` as the JSON answer `axum::Json` gives (the same body and `Content-Type`), but
/// serialized on Tokio's blocking pool.
///
/// Why: the list of 10,000 applications is about 6 MB of JSON, 10,000 nodes about 4 MB, each
/// some milliseconds of CPU even in a release build. A worker runs one task until it yields,
/// and the replica has one worker per core, so a few such answers serialized at once on the
/// workers would hold up every other call they serve meanwhile (NodeManager heartbeats, Raft
/// messages, allocations) for that long. On the blocking pool the operating system shares the
/// cores between the serialization and those calls instead.
///
/// # Errors
///
/// [`RmError::Internal`] when `value` does not serialize (a map with non-string keys) or the
/// blocking task panicked.
pub(crate) async fn blocking_json<T>(value: T) -> Result<Response, RmError>
where
    T: Serialize + Send + 'static,
{
    let body = tokio::task::spawn_blocking(move || serde_json::to_vec(&value))
        .await
        .map_err(|err| RmError::internal(format!("serializing the answer failed: {err}")))?
        .map_err(|err| RmError::internal(format!("the answer does not serialize: {err}")))?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(Serialize)]
    struct Apps {
        apps: Vec<BTreeMap<&'static str, i64>>,
    }

    async fn parts(response: Response) -> (Option<HeaderValue>, Vec<u8>) {
        let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (content_type, body.to_vec())
    }

    #[tokio::test]
    async fn the_answer_is_the_one_axum_json_gives() {
        let apps = || Apps {
            apps: (0..3).map(|i| BTreeMap::from([("id", i)])).collect(),
        };
        let ours = parts(blocking_json(apps()).await.unwrap()).await;
        let axums = parts(axum::Json(apps()).into_response()).await;
        assert_eq!(ours, axums);
        assert_eq!(ours.1, br#"{"apps":[{"id":0},{"id":1},{"id":2}]}"#);
    }

    #[tokio::test]
    async fn a_value_that_does_not_serialize_is_an_internal_error() {
        let keyed_by_pairs = BTreeMap::from([((1, 2), "pair keys are no JSON object keys")]);
        let err = blocking_json(keyed_by_pairs).await.unwrap_err();
        assert!(
            matches!(&err, RmError::Internal { message } if message.contains("does not serialize")),
            "{err:?}"
        );
    }
}

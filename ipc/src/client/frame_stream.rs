//! A client's connection as whole frames: bytes out, answers in.

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::pb::RpcResponseHeaderProto;
use crate::{ClientError, DEFAULT_MAX_DATA_LENGTH, FrameDecoder, ResponseFrame};

/// A stream to a Hadoop IPC server, read one response frame at a time.
///
/// Guarantees: an answer is returned only once its whole frame arrived; a frame over Hadoop's
/// `ipc.maximum.data.length` default is refused as soon as its length arrives.
pub(crate) struct FrameStream<S> {
    stream: S,
    buffer: BytesMut,
    decoder: FrameDecoder,
}

impl<S: AsyncRead + AsyncWrite + Unpin> FrameStream<S> {
    pub(crate) fn new(stream: S) -> Self {
        FrameStream {
            stream,
            buffer: BytesMut::new(),
            decoder: FrameDecoder::new(DEFAULT_MAX_DATA_LENGTH),
        }
    }

    /// Writes `bytes` whole (a preamble or frames) and flushes them.
    pub(crate) async fn send(
        &mut self,
        bytes: &[u8],
        during: &'static str,
    ) -> Result<(), ClientError> {
        let io = |source| ClientError::Io { during, source };
        self.stream.write_all(bytes).await.map_err(io)?;
        self.stream.flush().await.map_err(io)
    }

    /// Reads the next response frame: its header, and the answer on SUCCESS.
    pub(crate) async fn answer(
        &mut self,
        during: &'static str,
    ) -> Result<(RpcResponseHeaderProto, Option<Bytes>), ClientError> {
        loop {
            if let Some(frame) = self.decoder.decode(&mut self.buffer)? {
                return Ok(ResponseFrame::decode_answer(frame)?);
            }
            let read = self
                .stream
                .read_buf(&mut self.buffer)
                .await
                .map_err(|source| ClientError::Io { during, source })?;
            if read == 0 {
                return Err(ClientError::Closed { during });
            }
        }
    }
}

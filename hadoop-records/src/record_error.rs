//! Why a Hadoop message could not be read as yarn-ha's record.

/// A Hadoop message that is not what its protocol method takes.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The bytes do not decode as the message.
    #[error("{message} does not parse: {source}")]
    Malformed {
        /// The message's name.
        message: &'static str,
        #[source]
        source: prost::DecodeError,
    },
}

//! Why a Hadoop message could not be read as yarn-ha's record.

/// A Hadoop message that is not what its protocol method takes, or that yarn-ha cannot
/// represent. Every message names the message and, where one is at fault, the field.
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
    /// A field the method cannot do without is absent.
    #[error("{field} is missing")]
    Missing {
        /// `Message.field`, in Hadoop's names.
        field: &'static str,
    },
    /// One field holds a value yarn-ha's record cannot carry.
    #[error("{field}: {problem}")]
    Unrepresentable {
        /// `Message.field`, in Hadoop's names.
        field: &'static str,
        /// What is wrong with the value.
        problem: String,
    },
}

//! The codec's one error type.

/// Why bytes from a peer are not well-formed Hadoop IPC. Each variant names what was wrong with
/// what the peer sent; none of them is ever a panic, whatever the bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The connection did not open with `hrpc`.
    #[error("the connection preamble starts with {found:02x?}, not \"hrpc\"")]
    WrongMagic {
        /// The first four bytes the peer sent.
        found: [u8; 4],
    },

    /// The preamble names an IPC version other than 9.
    #[error("the client speaks IPC version {version}; this server speaks version 9 only")]
    UnsupportedVersion {
        /// The version byte as sent.
        version: u8,
    },

    /// The preamble's auth protocol byte is neither 0 (none) nor -33 (SASL).
    #[error("unknown auth protocol {code} in the connection preamble")]
    UnknownAuthProtocol {
        /// The byte, read as Hadoop reads it: signed.
        code: i8,
    },

    /// A frame's 4-byte length is negative when read as Java's signed int.
    #[error("frame length {length} is negative")]
    NegativeFrameLength {
        /// The length as sent.
        length: i32,
    },

    /// A frame's length is over the limit (`ipc.maximum.data.length`). The frame is refused as
    /// soon as its length arrives, before any of its body is buffered.
    #[error(
        "a frame of {length} bytes is longer than the maximum of {max} bytes (ipc.maximum.data.length)"
    )]
    FrameTooLong {
        /// The length as sent.
        length: u32,
        /// The server's limit.
        max: u32,
    },

    /// The frame ends inside the varint that prefixes a delimited message.
    #[error("the length prefix of {message} is cut off by the end of the frame")]
    TruncatedVarint {
        /// The message being read, such as `RpcRequestHeaderProto`.
        message: &'static str,
    },

    /// The varint that prefixes a delimited message runs past ten bytes.
    #[error("the length prefix of {message} is longer than ten bytes")]
    OverlongVarint {
        /// The message being read.
        message: &'static str,
    },

    /// A delimited message claims more bytes than its frame holds.
    #[error("{message} claims {declared} bytes but only {available} remain in the frame")]
    TruncatedMessage {
        /// The message being read.
        message: &'static str,
        /// The length its prefix declares.
        declared: u64,
        /// What is left of the frame after the prefix.
        available: usize,
    },

    /// A delimited message's bytes are not a valid encoding of it.
    #[error("{message} does not parse: {source}")]
    Undecodable {
        /// The message being read.
        message: &'static str,
        /// What protobuf decoding found.
        source: prost::DecodeError,
    },

    /// Bytes follow the last message of a frame: Hadoop's client refuses a response with
    /// anything after its answer.
    #[error("{count} bytes follow {message} in the frame")]
    TrailingBytes {
        /// The last message read.
        message: &'static str,
        /// How many bytes follow it.
        count: usize,
    },
}

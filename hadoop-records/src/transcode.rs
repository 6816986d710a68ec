//! Moving a message between Hadoop's and yarn-ha's definitions by re-encoding it.

use prost::Message;

use crate::RecordError;

/// Re-reads `from`'s encoding as a `To`: every field both define under the same number with the
/// same wire type and meaning comes across; fields `To` does not define are dropped.
///
/// # Errors
///
/// [`RecordError::Malformed`] when a field number means different wire types on the two sides.
/// For the messages this crate converts the wire-compatibility test rules that out for every
/// field a conversion does not take out first.
pub(crate) fn transcode<To: Message + Default>(from: &impl Message) -> Result<To, RecordError> {
    To::decode(from.encode_to_vec().as_slice()).map_err(|source| RecordError::Malformed {
        message: short_name::<To>(),
        source,
    })
}

/// [`transcode`] from yarn-ha's record to Hadoop's message, which cannot fail: every field
/// whose wire type differs is taken out by a hand conversion before this is called, and
/// `tests/records/wire_compat.rs` fails when a yarn-ha change adds another.
pub(crate) fn to_hadoop<To: Message + Default>(from: &impl Message) -> To {
    match transcode(from) {
        Ok(to) => to,
        Err(e) => unreachable!("yarn-ha's record no longer encodes as Hadoop's: {e}"),
    }
}

/// A message type's own name, without its module path.
pub(crate) fn short_name<T>() -> &'static str {
    std::any::type_name::<T>()
        .rsplit("::")
        .next()
        .unwrap_or("message")
}

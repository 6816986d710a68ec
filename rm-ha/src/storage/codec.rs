//! The on-disk encoding of every stored record: one format version byte, then postcard.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Record};

/// The format version this binary writes and the only one it reads.
pub(crate) const FORMAT_VERSION: u8 = 1;

/// Encodes `value` as `[FORMAT_VERSION, postcard bytes...]`.
pub(crate) fn encode<T: Serialize>(record: Record, value: &T) -> Result<Vec<u8>, Error> {
    let bytes = vec![FORMAT_VERSION];
    postcard::to_extend(value, bytes).map_err(|source| Error::Encode { record, source })
}

/// Decodes a record written by [`encode`], refusing any other format version.
pub(crate) fn decode<T: DeserializeOwned>(record: Record, bytes: &[u8]) -> Result<T, Error> {
    let (&version, body) = bytes.split_first().ok_or(Error::EmptyRecord { record })?;
    if version != FORMAT_VERSION {
        return Err(Error::UnsupportedFormatVersion {
            record,
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    postcard::from_bytes(body).map_err(|source| Error::Decode { record, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_other_versions() {
        let bytes = encode(Record::Vote, &(7u64, "x".to_owned())).unwrap();
        assert_eq!(bytes[0], FORMAT_VERSION);
        let back: (u64, String) = decode(Record::Vote, &bytes).unwrap();
        assert_eq!(back, (7, "x".to_owned()));

        let mut newer = bytes.clone();
        newer[0] = FORMAT_VERSION + 1;
        let err = decode::<(u64, String)>(Record::Vote, &newer).unwrap_err();
        assert!(matches!(
            err,
            Error::UnsupportedFormatVersion { found, expected: FORMAT_VERSION, .. } if found == FORMAT_VERSION + 1
        ));
        assert!(matches!(
            decode::<u64>(Record::Vote, &[]),
            Err(Error::EmptyRecord {
                record: Record::Vote
            })
        ));
    }
}

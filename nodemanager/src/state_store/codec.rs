//! The encoding of every state-store value: one format version byte, then postcard.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Error;
use crate::state_store::StoredRecord;

/// The format version this binary writes and the only one it reads. A change to any stored
/// record's shape bumps it, so that an older or newer store is refused instead of misread.
pub const FORMAT_VERSION: u8 = 3;

/// Encodes `value` as `[FORMAT_VERSION, postcard bytes...]`.
pub(super) fn encode<T: Serialize>(record: &StoredRecord, value: &T) -> Result<Vec<u8>, Error> {
    postcard::to_extend(value, vec![FORMAT_VERSION]).map_err(|source| Error::EncodeRecord {
        record: record.clone(),
        source: source.into(),
    })
}

/// Decodes a value written by [`encode`], refusing any other format version.
pub(super) fn decode<T: DeserializeOwned>(record: &StoredRecord, bytes: &[u8]) -> Result<T, Error> {
    let (&version, body) = bytes.split_first().ok_or_else(|| Error::EmptyRecord {
        record: record.clone(),
    })?;
    if version != FORMAT_VERSION {
        return Err(Error::UnsupportedRecordVersion {
            record: record.clone(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    postcard::from_bytes(body).map_err(|source| Error::DecodeRecord {
        record: record.clone(),
        source: source.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_other_versions_and_empty_values() {
        let record = StoredRecord::RmEpoch;
        let bytes = encode(&record, &(7_i64, "x".to_owned())).unwrap();
        assert_eq!(bytes[0], FORMAT_VERSION);
        let back: (i64, String) = decode(&record, &bytes).unwrap();
        assert_eq!(back, (7, "x".to_owned()));

        let mut newer = bytes;
        newer[0] = FORMAT_VERSION + 1;
        assert_eq!(
            decode::<(i64, String)>(&record, &newer),
            Err(Error::UnsupportedRecordVersion {
                record: StoredRecord::RmEpoch,
                found: FORMAT_VERSION + 1,
                expected: FORMAT_VERSION,
            })
        );
        assert_eq!(
            decode::<i64>(&record, &[]),
            Err(Error::EmptyRecord {
                record: StoredRecord::RmEpoch
            })
        );
        assert!(matches!(
            decode::<(i64, String)>(&record, &[FORMAT_VERSION, 0xFF]),
            Err(Error::DecodeRecord { .. })
        ));
    }
}

//! The on-disk encoding of every stored record: one format version byte, then postcard.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Record};
use crate::state_machine::{RmState, RmStateFormat1};

/// The format version this binary writes and the only one it reads, for every record but the
/// replicated state inside snapshots.
pub(crate) const FORMAT_VERSION: u8 = 1;

/// The format version of the replicated state inside snapshots that this binary writes: 2 since
/// containers keep their completion times, 3 since the state keeps each NodeManager's
/// incarnation, 4 since it keeps its apply rules and the attempt failures that did not count, 5
/// since it keeps the preemption waits, 6 since it keeps the reservations, 7 since it keeps the
/// reservation queues, 8 since it keeps the applications' lifetimes, 9 since it remembers the
/// applications it retired, 10 since it keeps the node labels, 11 since it keeps the queue
/// configurations changes replaced, 12 since it keeps the auto-created queues, 13 since an
/// auto-created leaf may hold its managed parent's capacity (`CreatedAs::GuaranteedLeaf`, which
/// a binary that reads format 12 at most cannot decode, so it refuses the snapshot by its
/// format). [`decode_state`] reads formats 1 to 12 as well.
pub(crate) const STATE_FORMAT_VERSION: u8 = 13;

/// How postcard encodes an empty map: its length, zero, in one byte.
const EMPTY_MAP: [u8; 1] = [0];
/// How postcard encodes apply rules 0 (a varint, one byte) and no uncounted attempt failures.
const RULES_0_NOTHING_UNCOUNTED: [u8; 2] = [0, 0];
/// How postcard encodes preemption waits with no container chosen: the empty map of first
/// choices and the empty set of the latest round's choices.
const NO_PREEMPTION_WAIT: [u8; 2] = [0, 0];
/// How postcard encodes an empty reservation table of format 6: the next sequence number 1
/// (zigzag, 2), plan version 0 and the empty map.
const NO_RESERVATION: [u8; 3] = [2, 0, 0];
/// How postcard encodes no reservation queue: the empty map.
const NO_RESERVATION_QUEUE: [u8; 1] = [0];
/// How postcard encodes no application lifetime: the empty map.
const NO_LIFETIME: [u8; 1] = [0];
/// How postcard encodes no retired application: the empty map of ranges and of counts.
const NONE_RETIRED: [u8; 2] = [0, 0];
/// How postcard encodes no node label: the empty map of labels and of node mappings.
const NO_NODE_LABELS: [u8; 2] = [0, 0];
/// How postcard encodes no kept queue configuration: the empty map.
const NO_QUEUE_CONFIG_HISTORY: [u8; 1] = [0];
/// How postcard encodes no auto-created queue: the empty map.
const NO_DYNAMIC_QUEUE: [u8; 1] = [0];

/// Encodes `value` as `[FORMAT_VERSION, postcard bytes...]`.
pub(crate) fn encode<T: Serialize>(record: Record, value: &T) -> Result<Vec<u8>, Error> {
    encode_as(record, FORMAT_VERSION, value)
}

/// Decodes a record written by [`encode`], refusing any other format version.
pub(crate) fn decode<T: DeserializeOwned>(record: Record, bytes: &[u8]) -> Result<T, Error> {
    match split_version(record, bytes)? {
        (FORMAT_VERSION, body) => decode_body(record, body),
        (found, _) => Err(Error::UnsupportedFormatVersion {
            record,
            found,
            expected: FORMAT_VERSION,
        }),
    }
}

/// Encodes the replicated state of a snapshot as `[STATE_FORMAT_VERSION, postcard bytes...]`.
pub(crate) fn encode_state(state: &RmState) -> Result<Vec<u8>, Error> {
    encode_as(Record::State, STATE_FORMAT_VERSION, state)
}

/// What each state format from 3 on appended to the one before, in order: how postcard encodes
/// the field (or fields) it added when they hold nothing.
const APPENDED_SINCE_FORMAT_3: [&[u8]; 11] = [
    &EMPTY_MAP,
    &RULES_0_NOTHING_UNCOUNTED,
    &NO_PREEMPTION_WAIT,
    &NO_RESERVATION,
    &NO_RESERVATION_QUEUE,
    &NO_LIFETIME,
    &NONE_RETIRED,
    &NO_NODE_LABELS,
    &NO_QUEUE_CONFIG_HISTORY,
    &NO_DYNAMIC_QUEUE,
    // Format 13 appended no field: it only holds a new kind of auto-created queue.
    &[],
];

/// Decodes the replicated state of a snapshot of state format 13; of formats 2 to 12, each of
/// which is the next one without the fields that one appended (which then hold nothing: see
/// [`APPENDED_SINCE_FORMAT_3`]); or of format 1, whose completed containers also have no
/// completion time. Refuses any other format version.
pub(crate) fn decode_state(bytes: &[u8]) -> Result<RmState, Error> {
    let record = Record::State;
    match split_version(record, bytes)? {
        (STATE_FORMAT_VERSION, body) => decode_body(record, body),
        (version @ 2..STATE_FORMAT_VERSION, body) => {
            let missing = &APPENDED_SINCE_FORMAT_3[usize::from(version) - 2..];
            decode_body(record, &[&[body], missing].concat().concat())
        }
        (1, body) => decode_body::<RmStateFormat1>(record, body).map(RmState::from),
        (found, _) => Err(Error::UnsupportedFormatVersion {
            record,
            found,
            expected: STATE_FORMAT_VERSION,
        }),
    }
}

fn encode_as<T: Serialize>(record: Record, version: u8, value: &T) -> Result<Vec<u8>, Error> {
    postcard::to_extend(value, vec![version]).map_err(|source| Error::Encode { record, source })
}

fn split_version(record: Record, bytes: &[u8]) -> Result<(u8, &[u8]), Error> {
    let (&version, body) = bytes.split_first().ok_or(Error::EmptyRecord { record })?;
    Ok((version, body))
}

fn decode_body<T: DeserializeOwned>(record: Record, body: &[u8]) -> Result<T, Error> {
    postcard::from_bytes(body).map_err(|source| Error::Decode { record, source })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::state_machine::test_fixtures::{key, running_application};
    use crate::state_machine::{
        ApplicationRecord, ApplicationState, CommandV1, ReservationQueueShare, ReservationTable,
        RmCommand,
    };

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

    #[test]
    fn the_state_is_written_in_format_13_and_read_in_formats_13_to_1() {
        let mut state = running_application(&[(2, "n1:1"), (3, "n1:1")], &[3]);
        state
            .node_incarnations
            .insert("n1:1".to_owned(), 1_700_000_000_000);
        state.apply_rules = 1;
        state.uncounted_attempt_failures.insert(1, 2);
        state.preemption_waits.round([key(2)], 1_000, 15_000);
        state.apply(&RmCommand::V1(CommandV1::AllocateReservationIds {
            count: 3,
        }));
        state.apply(&RmCommand::V1(CommandV1::SizeReservationQueues {
            queues: BTreeMap::from([(
                "root.a".to_owned(),
                vec![ReservationQueueShare {
                    sequence: 2,
                    capacity_millionths: 250_000,
                    maximum_capacity_millionths: 1_000_000,
                }],
            )]),
        }));
        state.lifetime_deadlines.insert(1, 1_700_000_060_000);
        state.applications.insert(
            2,
            ApplicationRecord {
                sequence: 2,
                state: ApplicationState::Finished,
                ..ApplicationRecord::default()
            },
        );
        state.apply(&RmCommand::V1(CommandV1::RetireCompletedApplications {
            keep: 0,
        }));
        assert!(state.retired.contains(2));
        state.apply(&RmCommand::V1(CommandV1::AddClusterNodeLabels {
            labels: vec![yarn_scheduler::NodeLabel {
                name: "gpu".into(),
                exclusive: false,
            }],
        }));
        state.apply(&RmCommand::V1(CommandV1::ReplaceLabelsOnNodes {
            mappings: vec![(
                yarn_scheduler::NodeSpec::parse("n1:8041").unwrap(),
                Some("gpu".into()),
            )],
        }));
        assert!(!state.node_labels.is_empty());
        for (expected, version) in [(0, "1"), (1, "2")] {
            state.apply(&RmCommand::V1(CommandV1::SetQueueConfigurationKeeping {
                expected,
                properties: BTreeMap::from([("k".to_owned(), version.to_owned())]),
                keep: 5,
            }));
        }
        assert_eq!(state.queue_config_history.versions().count(), 1);
        state.dynamic_queues.insert(
            "root.users.alice".to_owned(),
            yarn_scheduler::CreatedAs::Leaf,
        );
        state.dynamic_queues.insert(
            "root.managed.bob".to_owned(),
            yarn_scheduler::CreatedAs::GuaranteedLeaf,
        );
        let bytes = encode_state(&state).unwrap();
        assert_eq!(bytes[0], STATE_FORMAT_VERSION);
        assert_eq!(decode_state(&bytes).unwrap(), state);

        // Format 13 is format 12 with a version number that tells which kinds of auto-created
        // queue it may hold. With no auto-created queue, format 12 ends in its empty map (one byte), after exactly
        // the bytes format 11 held. With no kept queue configuration, format 11 ends in its empty map (one byte), after
        // exactly the bytes format 10 held. With no node label, format 10 ends in its two empty
        // maps (two bytes), after exactly the bytes format 9 held. With none retired, format 9 ends in its two empty maps (two
        // bytes), after exactly the bytes format 8 held. With no lifetime, format 8 ends in its empty map (one byte),
        // after exactly the bytes format 7 held. With no reservation queue, format 7 ends in its empty map (one byte),
        // after exactly the bytes format 6 held. With no reservation, format 6 ends in its empty table (three
        // bytes), after exactly the bytes format 5 held. With no preemption wait, format 5 ends in its empty map and set, after exactly the
        // bytes format 4 held; with rules 0 and nothing uncounted, format 4 ends in those two bytes,
        // after exactly the bytes format 3 held; without incarnations, format 3 ends in their empty map (one
        // byte), after exactly the bytes format 2 held; without completion times, format 2 ends
        // in theirs, after exactly the bytes format 1 held.
        state = running_application(&[(2, "n1:1")], &[]);
        state.apply_rules = 0;
        let format_13 = encode_state(&state).unwrap();
        let mut format_12 = format_13.clone();
        format_12[0] = 12;
        assert_eq!(decode_state(&format_12).unwrap(), state);
        let mut format_11 = format_12[..format_12.len() - 1].to_vec();
        format_11[0] = 11;
        assert_eq!(decode_state(&format_11).unwrap(), state);
        let mut format_10 = format_11[..format_11.len() - 1].to_vec();
        format_10[0] = 10;
        assert_eq!(decode_state(&format_10).unwrap(), state);
        let mut format_9 = format_10[..format_10.len() - 2].to_vec();
        format_9[0] = 9;
        assert_eq!(decode_state(&format_9).unwrap(), state);
        let mut format_8 = format_9[..format_9.len() - 2].to_vec();
        format_8[0] = 8;
        assert_eq!(decode_state(&format_8).unwrap(), state);
        let mut format_7 = format_8[..format_8.len() - 1].to_vec();
        format_7[0] = 7;
        assert_eq!(decode_state(&format_7).unwrap(), state);
        assert_eq!(
            postcard::to_allocvec(&ReservationTable::default()).unwrap(),
            [NO_RESERVATION.as_slice(), &NO_RESERVATION_QUEUE].concat()
        );
        let mut format_6 = format_7[..format_7.len() - 1].to_vec();
        format_6[0] = 6;
        assert_eq!(decode_state(&format_6).unwrap(), state);
        let mut format_5 = format_6[..format_6.len() - 3].to_vec();
        format_5[0] = 5;
        assert_eq!(decode_state(&format_5).unwrap(), state);
        let mut format_4 = format_5[..format_5.len() - 2].to_vec();
        format_4[0] = 4;
        assert_eq!(decode_state(&format_4).unwrap(), state);
        let mut format_3 = format_4[..format_4.len() - 2].to_vec();
        format_3[0] = 3;
        assert_eq!(decode_state(&format_3).unwrap(), state);
        let mut format_2 = format_3[..format_3.len() - 1].to_vec();
        format_2[0] = 2;
        assert_eq!(decode_state(&format_2).unwrap(), state);
        let mut format_1 = format_2[..format_2.len() - 1].to_vec();
        format_1[0] = 1;
        assert_eq!(decode_state(&format_1).unwrap(), state);

        let mut newer = format_13;
        newer[0] = STATE_FORMAT_VERSION + 1;
        assert!(matches!(
            decode_state(&newer),
            Err(Error::UnsupportedFormatVersion {
                record: Record::State,
                found: 14,
                expected: STATE_FORMAT_VERSION,
            })
        ));
    }
}

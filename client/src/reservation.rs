//! `yarn-ha reservation`: the ReservationSystem from the command line (Hadoop has no such
//! command; its users reach reservations through `YarnClient` or REST), and the text it prints.

use yarn_conf::Configuration;
use yarn_proto::ids::ReservationId;
use yarn_proto::pb;

use crate::terminal_text::escape_for_terminal;
use crate::{Error, YarnClient};

/// One thing to do with reservations.
#[derive(Debug, Clone, PartialEq)]
pub enum ReservationCommand {
    /// Hand out a new reservation id.
    Create,
    /// Submit `definition` to `queue` under `id`, or under a new id when there is none.
    Submit {
        /// The reservable queue.
        queue: String,
        /// The id from an earlier `create`.
        id: Option<ReservationId>,
        /// What to reserve.
        definition: pb::ReservationDefinitionProto,
    },
    /// Replace the definition of reservation `id`.
    Update {
        /// The reservation.
        id: ReservationId,
        /// Its new definition.
        definition: pb::ReservationDefinitionProto,
    },
    /// Delete reservation `id`.
    Delete {
        /// The reservation.
        id: ReservationId,
    },
    /// List the reservations of a queue.
    List(pb::ReservationListRequestProto),
}

/// Runs `command` against the leader and returns what to print. Blocks on its own
/// single-threaded runtime.
///
/// # Errors
///
/// Those of [`YarnClient`]'s calls: a refusal comes back as the leader's status, which names
/// the field or the limit at fault.
pub fn reservation_blocking(
    conf: &Configuration,
    command: ReservationCommand,
) -> Result<String, Error> {
    let client = YarnClient::from_conf(conf)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Runtime { source })?;
    runtime.block_on(run(&client, command))
}

async fn run(client: &YarnClient, command: ReservationCommand) -> Result<String, Error> {
    match command {
        ReservationCommand::Create => Ok(format!("{}\n", client.create_reservation().await?)),
        ReservationCommand::Submit {
            queue,
            id,
            definition,
        } => {
            let id = match id {
                Some(id) => id,
                None => client.create_reservation().await?,
            };
            client
                .submit_reservation(pb::ReservationSubmissionRequestProto {
                    queue,
                    reservation_definition: Some(definition),
                    reservation_id: Some(id.into()),
                })
                .await?;
            Ok(format!("Submitted {id}\n"))
        }
        ReservationCommand::Update { id, definition } => {
            client
                .update_reservation(pb::ReservationUpdateRequestProto {
                    reservation_definition: Some(definition),
                    reservation_id: Some(id.into()),
                })
                .await?;
            Ok(format!("Updated {id}\n"))
        }
        ReservationCommand::Delete { id } => {
            client.delete_reservation(id).await?;
            Ok(format!("Deleted {id}\n"))
        }
        ReservationCommand::List(request) => Ok(format_reservations(
            &client.list_reservations(request).await?,
        )),
    }
}

/// Reads a time as `--arrival` and `--deadline` take it: milliseconds since the Unix epoch, or
/// `+` and a duration from `now_ms` (`+90s`, `+10m`, `+2h`).
///
/// # Errors
///
/// A message quoting the text and the accepted forms.
pub fn parse_time(text: &str, now_ms: i64) -> Result<i64, String> {
    let text = text.trim();
    if let Some(offset) = text.strip_prefix('+') {
        let offset = parse_duration_ms(offset)
            .ok_or_else(|| format!("{text:?} is not +<duration> (a number with ms, s, m or h)"))?;
        return now_ms
            .checked_add(offset)
            .ok_or_else(|| format!("{text:?} is too far in the future"));
    }
    text.parse::<i64>().map_err(|_| {
        format!("{text:?} is neither milliseconds since the Unix epoch nor +<duration> (e.g. +10m)")
    })
}

fn parse_duration_ms(text: &str) -> Option<i64> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: i64 = number.parse().ok()?;
    let scale = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    value.checked_mul(scale)
}

/// Reads one stage as `--request` takes it: comma-separated `memory=<MB>`, `vcores=<n>`,
/// `containers=<n>`, `gang=<n>` and `duration=<duration>`; `vcores`, `containers` and
/// `gang` default to 1, the others are required.
///
/// # Errors
///
/// A message naming the part at fault.
pub fn parse_request(text: &str) -> Result<pb::ReservationRequestProto, String> {
    let mut memory = None;
    let mut vcores = 1;
    let mut containers = 1;
    let mut gang = 1;
    let mut duration = None;
    for part in text
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
    {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| format!("{part:?} is not name=value"))?;
        let number = |value: &str| {
            value
                .trim()
                .parse::<i32>()
                .map_err(|_| format!("{name}={value:?} is not a whole number"))
        };
        match name.trim() {
            "memory" => memory = Some(i64::from(number(value)?)),
            "vcores" => vcores = number(value)?,
            "containers" => containers = number(value)?,
            "gang" => gang = number(value)?,
            "duration" => {
                duration = Some(parse_duration_ms(value.trim()).ok_or_else(|| {
                    format!("duration={value:?} is not a number with ms, s, m or h")
                })?);
            }
            other => {
                return Err(format!(
                    "unknown {other:?}: a request takes memory, vcores, containers, gang and \
                     duration"
                ));
            }
        }
    }
    Ok(pb::ReservationRequestProto {
        capability: Some(pb::ResourceProto {
            memory: memory.ok_or("a request needs memory=<MB>")?,
            virtual_cores: vcores,
            ..Default::default()
        }),
        num_containers: Some(containers),
        concurrency: Some(gang),
        duration: Some(duration.ok_or("a request needs duration=<duration>")?),
    })
}

/// Renders reservations one block each: id, user, name, window, acceptance time and what the
/// plan gives each over time, as `<start>-<end>: <memory:...>`.
pub fn format_reservations(reservations: &[pb::ReservationAllocationStateProto]) -> String {
    let mut out = format!("Total number of reservations:{}\n", reservations.len());
    for reservation in reservations {
        let id = reservation
            .reservation_id
            .and_then(|id| ReservationId::try_from(id).ok())
            .map(|id| id.to_string())
            .unwrap_or_default();
        let definition = reservation
            .reservation_definition
            .clone()
            .unwrap_or_default();
        out.push_str(&format!(
            "{id}\tuser={}\tname={}\tarrival={}\tdeadline={}\taccepted={}\n",
            escape_for_terminal(&reservation.user),
            escape_for_terminal(&definition.reservation_name),
            definition.arrival,
            definition.deadline,
            reservation.acceptance_time
        ));
        for piece in &reservation.allocation_requests {
            let resource = piece.resource.clone().unwrap_or_default();
            out.push_str(&format!(
                "\t{}-{}: <memory:{}, vCores:{}>\n",
                piece.start_time, piece.end_time, resource.memory, resource.virtual_cores
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_absolute_or_relative_to_now() {
        assert_eq!(parse_time("1700000000000", 5), Ok(1_700_000_000_000));
        assert_eq!(parse_time("+10m", 1_000), Ok(601_000));
        assert_eq!(parse_time("+500ms", 0), Ok(500));
        assert!(parse_time("tomorrow", 0).unwrap_err().contains("tomorrow"));
        assert!(parse_time("+10d", 0).is_err());
    }

    #[test]
    fn a_request_reads_its_parts_with_defaults() {
        let request = parse_request("memory=1024, containers=4, gang=2, duration=10m").unwrap();
        let capability = request.capability.clone().unwrap();
        assert_eq!((capability.memory, capability.virtual_cores), (1024, 1));
        assert_eq!(
            (
                request.num_containers,
                request.concurrency,
                request.duration
            ),
            (Some(4), Some(2), Some(600_000))
        );
        assert!(
            parse_request("containers=4,duration=1m")
                .unwrap_err()
                .contains("memory")
        );
        assert!(
            parse_request("memory=1024")
                .unwrap_err()
                .contains("duration")
        );
        assert!(
            parse_request("memory=1024,duration=1m,colour=red")
                .unwrap_err()
                .contains("colour")
        );
        assert!(
            parse_request("memory=lots,duration=1m")
                .unwrap_err()
                .contains("memory")
        );
    }

    #[test]
    fn a_listing_shows_each_reservation_and_its_allocation() {
        let reservation = pb::ReservationAllocationStateProto {
            reservation_definition: Some(pb::ReservationDefinitionProto {
                arrival: 1_000,
                deadline: 9_000,
                reservation_name: "nightly\u{1b}[2J".to_owned(),
                ..Default::default()
            }),
            allocation_requests: vec![pb::ResourceAllocationRequestProto {
                start_time: 1_000,
                end_time: 2_000,
                resource: Some(pb::ResourceProto {
                    memory: 2048,
                    virtual_cores: 2,
                    ..Default::default()
                }),
            }],
            user: "alice".to_owned(),
            acceptance_time: 500,
            reservation_id: Some(ReservationId::new(7, 1).into()),
            ..Default::default()
        };
        let text = format_reservations(&[reservation]);
        assert!(
            text.starts_with("Total number of reservations:1\n"),
            "{text}"
        );
        assert!(text.contains("reservation_7_0001\tuser=alice"), "{text}");
        assert!(
            text.contains("1000-2000: <memory:2048, vCores:2>"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "names are escaped: {text:?}");
    }
}

//! `yarn-ha reservation <verb>`: the ReservationSystem from the command line.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_client::reservation::{ReservationCommand as Command, parse_time, reservation_blocking};
use yarn_conf::Configuration;
use yarn_proto::pb;
use yarn_security::now_ms;

use crate::cli::{ReservationCommand, ReservationDefinitionArgs};

/// Runs the verb, prints its outcome and exits 0, or prints the failure on stderr and exits 1.
pub fn run(conf_dir: Option<&Path>, command: ReservationCommand) -> anyhow::Result<ExitCode> {
    let dir = conf_dir.context(
        "reservation needs a configuration directory: pass --conf-dir DIR or set YARN_CONF_DIR",
    )?;
    let conf = Configuration::load_dir(dir)?;
    let now = now_ms();
    let time = |text: &str, flag: &str| {
        parse_time(text, now).map_err(|err| anyhow::anyhow!("--{flag}: {err}"))
    };
    let command = match command {
        ReservationCommand::Create => Command::Create,
        ReservationCommand::Submit {
            queue,
            id,
            definition,
        } => Command::Submit {
            queue,
            id,
            definition: definition_proto(definition, now)?,
        },
        ReservationCommand::Update { id, definition } => Command::Update {
            id,
            definition: definition_proto(definition, now)?,
        },
        ReservationCommand::Delete { id } => Command::Delete { id },
        ReservationCommand::List {
            queue,
            id,
            start,
            end,
            allocations,
        } => Command::List(pb::ReservationListRequestProto {
            queue,
            reservation_id: id.map(|id| id.to_string()).unwrap_or_default(),
            start_time: start.as_deref().map_or(Ok(0), |t| time(t, "start"))?,
            end_time: end.as_deref().map(|t| time(t, "end")).transpose()?,
            include_resource_allocations: allocations,
        }),
    };
    Ok(super::report_outcome(reservation_blocking(&conf, command)))
}

fn definition_proto(
    args: ReservationDefinitionArgs,
    now: i64,
) -> anyhow::Result<pb::ReservationDefinitionProto> {
    Ok(pb::ReservationDefinitionProto {
        reservation_requests: Some(pb::ReservationRequestsProto {
            reservation_resources: args.requests,
            interpreter: Some(args.interpreter.into()),
        }),
        arrival: parse_time(&args.arrival, now)
            .map_err(|err| anyhow::anyhow!("--arrival: {err}"))?,
        deadline: parse_time(&args.deadline, now)
            .map_err(|err| anyhow::anyhow!("--deadline: {err}"))?,
        reservation_name: args.name,
        recurrence_expression: Some("0".to_owned()),
        priority: None,
    })
}

//! Walks Hadoop's and yarn-ha's messages side by side, from the requests and responses yarn-ha
//! serves, and lists every field where the two differ.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use prost_types::FieldDescriptorProto;
use prost_types::field_descriptor_proto::{Label, Type};

use crate::descriptors::Pool;

/// What the walk found, each field named `Message.field` by Hadoop's names (yarn-ha's names for
/// fields Hadoop does not have).
#[derive(Default)]
pub struct Comparison {
    /// Fields both declare under the same number that a plain re-encoding would get wrong, with
    /// the reason.
    pub disagreements: BTreeMap<String, String>,
    /// Hadoop fields yarn-ha does not model: dropped when a Hadoop client sends them, never sent.
    pub dropped: BTreeSet<String>,
    /// yarn-ha fields Hadoop does not have: Hadoop clients never see them.
    pub yarn_only: BTreeSet<String>,
    /// Hadoop's `required` fields: prost encodes them always, so every response carries them.
    pub required: BTreeSet<String>,
}

/// The message pairs the walk starts from: the same name in both packages, except that the two
/// report methods yarn-ha has no rpc for start from the records their responses carry.
pub fn roots() -> Vec<(String, String)> {
    let mut names: Vec<&str> = Vec::new();
    for method in [
        "GetNewApplication",
        "SubmitApplication",
        "GetApplicationReport",
        "GetApplications",
        "KillApplication",
        "GetClusterMetrics",
        "GetClusterNodes",
        "GetQueueInfo",
        "GetQueueUserAclsInfo",
        "MoveApplicationAcrossQueues",
        "GetApplicationAttempts",
        "GetContainers",
        "FailApplicationAttempt",
        "UpdateApplicationPriority",
        "UpdateApplicationTimeouts",
        "RegisterApplicationMaster",
        "Allocate",
        "FinishApplicationMaster",
        "StartContainers",
        "StopContainers",
        "GetContainerStatuses",
        "GetNewReservation",
        "ReservationSubmission",
        "ReservationUpdate",
        "ReservationDelete",
        "ReservationList",
    ] {
        names.push(method);
    }
    let mut roots: Vec<(String, String)> = names
        .iter()
        .flat_map(|m| [format!("{m}RequestProto"), format!("{m}ResponseProto")])
        .chain([
            "ContainerUpdateRequestProto".into(),
            "ContainerUpdateResponseProto".into(),
        ])
        .chain([
            "ApplicationAttemptIdProto".into(),
            "ApplicationAttemptReportProto".into(),
            "ContainerIdProto".into(),
            "ContainerReportProto".into(),
        ])
        .map(|name| (format!("hadoop.yarn.{name}"), format!("yarn.{name}")))
        .collect();
    roots.sort();
    roots
}

/// Compares every message pair reachable from [`roots`].
pub fn compare(hadoop: &Pool, yarn: &Pool) -> Comparison {
    let mut found = Comparison::default();
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<(String, String)> = roots().into();
    while let Some((h_name, y_name)) = queue.pop_front() {
        if !seen.insert((h_name.clone(), y_name.clone())) {
            continue;
        }
        let h = hadoop.message(&h_name);
        let y = yarn.message(&y_name);
        let short = h.name();
        for hf in &h.field {
            let key = format!("{short}.{}", hf.name());
            if hf.label() == Label::Required {
                found.required.insert(key.clone());
            }
            let Some(yf) = y.field.iter().find(|f| f.number() == hf.number()) else {
                found.dropped.insert(key);
                continue;
            };
            // A field that disagrees is converted by hand, which decides what its parts mean.
            if let Some(reason) = disagreement(hadoop, yarn, hf, yf) {
                found.disagreements.insert(key, reason);
            } else if hf.r#type() == Type::Message {
                queue.push_back((
                    hf.type_name().trim_start_matches('.').to_owned(),
                    yf.type_name().trim_start_matches('.').to_owned(),
                ));
            }
        }
        for yf in &y.field {
            if !h.field.iter().any(|f| f.number() == yf.number()) {
                found.yarn_only.insert(format!("{short}.{}", yf.name()));
            }
        }
    }
    found
}

/// Why re-encoding one field from one side to the other would change its meaning, if it would.
///
/// Packed and unpacked encodings of repeated scalars are not a difference: every protobuf
/// parser, Java's and prost's included, reads both.
fn disagreement(
    hadoop: &Pool,
    yarn: &Pool,
    hf: &FieldDescriptorProto,
    yf: &FieldDescriptorProto,
) -> Option<String> {
    let repeated = |f: &FieldDescriptorProto| f.label() == Label::Repeated;
    if repeated(hf) != repeated(yf) {
        return Some(format!(
            "repeated on one side only (Hadoop {:?}, yarn-ha {:?})",
            hf.label(),
            yf.label()
        ));
    }
    if hf.r#type() != yf.r#type() {
        return Some(format!("Hadoop {} vs yarn-ha {}", type_of(hf), type_of(yf)));
    }
    if !same_name(hf.name(), yf.name()) {
        return Some(format!("different field: yarn-ha's is {}", yf.name()));
    }
    if hf.r#type() == Type::Message
        && shape(hadoop, hf.type_name()) != shape(yarn, yf.type_name())
        && wrapper(hadoop, hf.type_name())
    {
        return Some(format!(
            "Hadoop wraps the value: {} vs {}",
            type_of(hf),
            type_of(yf)
        ));
    }
    let presence = yf.proto3_optional() || repeated(yf) || yf.r#type() == Type::Message;
    if hf.r#type() == Type::Enum {
        let h_values = values(hadoop, hf.type_name());
        let y_values = values(yarn, yf.type_name());
        let unspecified_added = !h_values.contains(&0);
        let extra: Vec<i32> = y_values
            .iter()
            .filter(|v| !(h_values.contains(v) || (unspecified_added && **v == 0)))
            .copied()
            .collect();
        let missing: Vec<i32> = h_values.difference(&y_values).copied().collect();
        if !extra.is_empty() || !missing.is_empty() {
            return Some(format!(
                "enum values only yarn-ha has {extra:?}, only Hadoop has {missing:?}"
            ));
        }
        if !presence && !repeated(hf) && h_values.contains(&0) && hf.default_value.is_none() {
            return Some(
                "Hadoop's 0 is a value, which proto3 omits and Java then reads as absent".into(),
            );
        }
    }
    if let Some(default) = &hf.default_value
        && !presence
        && !is_zero(hadoop, hf, default)
    {
        return Some(format!(
            "Hadoop's default is {default:?}; yarn-ha cannot tell its zero from absent"
        ));
    }
    None
}

/// Names that differ only in case, underscores or a plural ending (yarn-ha names repeated
/// fields in the plural, Hadoop often in the singular).
fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_')
            .collect::<String>()
            .to_lowercase()
    };
    let (a, b) = (norm(a), norm(b));
    let plural = |one: &str, many: &str| many == format!("{one}s") || many == format!("{one}es");
    a == b || plural(&a, &b) || plural(&b, &a)
}

fn type_of(f: &FieldDescriptorProto) -> String {
    match f.r#type() {
        Type::Message | Type::Enum => f.type_name().rsplit('.').next().unwrap_or("").to_owned(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// A message's fields as (number, type) pairs, to tell a wrapper from what it wraps.
fn shape(pool: &Pool, type_name: &str) -> Vec<(i32, Type)> {
    pool.message(type_name)
        .field
        .iter()
        .map(|f| (f.number(), f.r#type()))
        .collect()
}

/// Whether a Hadoop message only wraps one message (PreemptionContainerProto and the like).
fn wrapper(pool: &Pool, type_name: &str) -> bool {
    let message = pool.message(type_name);
    message.field.len() == 1 && message.field[0].r#type() == Type::Message
}

fn values(pool: &Pool, type_name: &str) -> BTreeSet<i32> {
    pool.enumeration(type_name)
        .value
        .iter()
        .map(|v| v.number())
        .collect()
}

/// Whether a Hadoop default is the value proto3 omits.
fn is_zero(pool: &Pool, f: &FieldDescriptorProto, default: &str) -> bool {
    match f.r#type() {
        Type::Enum => pool
            .enumeration(f.type_name())
            .value
            .iter()
            .any(|v| v.name() == default && v.number() == 0),
        Type::String | Type::Bytes => default.is_empty(),
        Type::Bool => default == "false",
        _ => default.parse::<f64>() == Ok(0.0),
    }
}

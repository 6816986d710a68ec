//! [`SchedConfInfo`]: the body of `PUT /ws/v1/cluster/scheduler-conf`, Hadoop's `sched-conf`
//! in its XML or JSON form.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::jaxb_json::{Entries, OneOrMany};
use crate::operations::RmError;
use crate::scheduling::{QueueConfigChange, SchedConfUpdate};

/// Hadoop's `SchedConfUpdateInfo`. An unknown element is refused by name; the federation's
/// `subClusterId`, which Hadoop 3.4's client always sends, only when it names a sub-cluster.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(super) struct SchedConfInfo {
    #[serde(rename = "subClusterId")]
    sub_cluster_id: Option<String>,
    add_queue: Option<OneOrMany<QueueConfigInfo>>,
    remove_queue: Option<OneOrMany<String>>,
    update_queue: Option<OneOrMany<QueueConfigInfo>>,
    global_updates: Option<OneOrMany<Entries<Option<String>>>>,
    /// The name JAXB's field (rather than its getter) gives the global updates.
    global: Option<OneOrMany<Entries<Option<String>>>>,
}

/// Hadoop's `QueueConfigInfo`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QueueConfigInfo {
    #[serde(rename = "queue-name")]
    queue_name: String,
    params: Option<Entries<Option<String>>>,
}

impl SchedConfInfo {
    /// The update a body describes: XML (`<sched-conf>...`) when `xml`, JSON otherwise.
    ///
    /// # Errors
    ///
    /// [`RmError::InvalidRequest`] saying what does not parse and where.
    pub(super) fn parse(body: &[u8], xml: bool) -> Result<SchedConfUpdate, RmError> {
        let invalid = |reason: String| {
            RmError::invalid(
                "sched-conf",
                format!("the body is not a sched-conf: {reason}"),
            )
        };
        let info: Self = if xml {
            let value = xml_value(body).map_err(invalid)?;
            serde_json::from_value(value).map_err(|err| invalid(err.to_string()))?
        } else {
            serde_json::from_slice(body).map_err(|err| invalid(err.to_string()))?
        };
        if let Some(sub_cluster) = info.sub_cluster_id.filter(|id| !id.trim().is_empty()) {
            return Err(invalid(format!(
                "subClusterId {sub_cluster:?}: yarn-ha is not federated"
            )));
        }
        let queues = |queues: Option<OneOrMany<QueueConfigInfo>>| -> Vec<QueueConfigChange> {
            queues
                .map(OneOrMany::into_vec)
                .unwrap_or_default()
                .into_iter()
                .map(|queue| QueueConfigChange {
                    queue: queue.queue_name,
                    params: queue.params.map(Entries::into_pairs).unwrap_or_default(),
                })
                .collect()
        };
        Ok(SchedConfUpdate {
            remove_queues: info
                .remove_queue
                .map(OneOrMany::into_vec)
                .unwrap_or_default(),
            add_queues: queues(info.add_queue),
            update_queues: queues(info.update_queue),
            global_updates: info
                .global_updates
                .into_iter()
                .chain(info.global)
                .flat_map(OneOrMany::into_vec)
                .flat_map(Entries::into_pairs)
                .collect(),
        })
    }
}

/// The elements whose content is a map or a record: empty, they are an empty object.
const OBJECT_ELEMENTS: [&str; 6] = [
    "sched-conf",
    "add-queue",
    "update-queue",
    "params",
    "global-updates",
    "global",
];

/// The `<sched-conf>` document as the JSON JAXB would write for it: an element with children
/// is an object of them (a repeated child an array), an empty one of [`OBJECT_ELEMENTS`] an
/// empty object, any other its text as written (an ACL of one space means nobody).
fn xml_value(body: &[u8]) -> Result<Value, String> {
    use quick_xml::escape::resolve_predefined_entity;
    use quick_xml::events::Event;

    let text = std::str::from_utf8(body).map_err(|err| format!("not UTF-8: {err}"))?;
    let mut reader = quick_xml::Reader::from_str(text);
    // Each open element: its name, its children, its text.
    let mut stack: Vec<(String, Map<String, Value>, String)> = Vec::new();
    let mut root = None;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|err| format!("XML at byte {position}: {err}"))?;
        match event {
            Event::Start(start) => {
                let name = start.name().into_inner().to_owned();
                stack.push((name, Map::new(), String::new()));
            }
            Event::Empty(empty) => {
                let name = empty.name().into_inner().to_owned();
                let value = leaf(&name, String::new());
                match stack.last_mut() {
                    Some((_, children, _)) => add_child(children, name, value),
                    None if root.is_none() => root = Some((name, value)),
                    None => return Err(format!("a second root element <{name}>")),
                }
            }
            Event::Text(text) => {
                if let Some((_, _, own)) = stack.last_mut() {
                    own.push_str(&text.xml10_content());
                }
            }
            Event::CData(data) => {
                if let Some((_, _, own)) = stack.last_mut() {
                    own.push_str(&data.xml10_content());
                }
            }
            Event::GeneralRef(reference) => {
                let resolved = if reference.is_char_ref() {
                    reference
                        .resolve_char_ref()
                        .ok()
                        .flatten()
                        .map(|character| character.to_string())
                } else {
                    resolve_predefined_entity(&reference).map(str::to_owned)
                };
                let resolved = resolved.ok_or_else(|| {
                    format!(
                        "XML at byte {position}: unknown reference &{};",
                        &*reference
                    )
                })?;
                if let Some((_, _, own)) = stack.last_mut() {
                    own.push_str(&resolved);
                }
            }
            Event::End(_) => {
                let Some((name, children, text)) = stack.pop() else {
                    return Err("an end tag without a start".to_owned());
                };
                let value = if children.is_empty() {
                    leaf(&name, text)
                } else {
                    Value::Object(children)
                };
                match stack.last_mut() {
                    Some((_, parent, _)) => add_child(parent, name, value),
                    None if root.is_none() => root = Some((name, value)),
                    None => return Err(format!("a second root element <{name}>")),
                }
            }
            Event::Eof => {
                if let Some((name, _, _)) = stack.last() {
                    return Err(format!("<{name}> is not closed"));
                }
                break;
            }
            _ => {}
        }
    }
    match root {
        Some((name, Value::Object(children))) if name == "sched-conf" => {
            Ok(Value::Object(children))
        }
        Some((name, _)) if name == "sched-conf" => Ok(Value::Object(Map::new())),
        Some((name, _)) => Err(format!("the root element is <{name}>, not <sched-conf>")),
        None => Err("no <sched-conf> element: the body is not XML".to_owned()),
    }
}

/// An element without children: an empty object for [`OBJECT_ELEMENTS`] holding nothing but
/// white space, its text otherwise.
fn leaf(name: &str, text: String) -> Value {
    if OBJECT_ELEMENTS.contains(&name) && text.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        Value::String(text)
    }
}

fn add_child(children: &mut Map<String, Value>, name: String, value: Value) {
    match children.get_mut(&name) {
        Some(Value::Array(items)) => items.push(value),
        Some(existing) => *existing = Value::Array(vec![existing.take(), value]),
        None => {
            children.insert(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected() -> SchedConfUpdate {
        SchedConfUpdate {
            remove_queues: vec!["root.a".to_owned(), "root.b".to_owned()],
            add_queues: vec![QueueConfigChange {
                queue: "root.c".to_owned(),
                params: vec![("capacity".to_owned(), Some("10".to_owned()))],
            }],
            update_queues: vec![QueueConfigChange {
                queue: "root.default".to_owned(),
                params: vec![
                    ("capacity".to_owned(), Some("90".to_owned())),
                    ("accessible-node-labels".to_owned(), Some(String::new())),
                ],
            }],
            global_updates: vec![(
                "yarn.scheduler.capacity.queue-mappings-override.enable".to_owned(),
                Some("true".to_owned()),
            )],
        }
    }

    #[test]
    fn hadoops_xml_and_json_forms_read_the_same() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
            <sched-conf>
              <add-queue><queue-name>root.c</queue-name>
                <params><entry><key>capacity</key><value>10</value></entry></params></add-queue>
              <update-queue><queue-name>root.default</queue-name>
                <params>
                  <entry><key>capacity</key><value>90</value></entry>
                  <entry><key>accessible-node-labels</key><value></value></entry>
                </params></update-queue>
              <remove-queue>root.a</remove-queue><remove-queue>root.b</remove-queue>
              <global-updates><entry>
                <key>yarn.scheduler.capacity.queue-mappings-override.enable</key>
                <value>true</value></entry></global-updates>
            </sched-conf>"#;
        assert_eq!(SchedConfInfo::parse(xml, true).unwrap(), expected());
        let json = br#"{
            "add-queue": {"queue-name": "root.c",
                          "params": {"entry": {"key": "capacity", "value": "10"}}},
            "update-queue": [{"queue-name": "root.default", "params": {"entry": [
                {"key": "capacity", "value": "90"},
                {"key": "accessible-node-labels", "value": ""}]}}],
            "remove-queue": ["root.a", "root.b"],
            "global": {"entry": {"key": "yarn.scheduler.capacity.queue-mappings-override.enable",
                                 "value": "true"}}
        }"#;
        assert_eq!(SchedConfInfo::parse(json, false).unwrap(), expected());
        // A key without a value unsets it.
        let unset = br#"{"update-queue": {"queue-name": "root.a",
                         "params": {"entry": {"key": "capacity"}}}}"#;
        assert_eq!(
            SchedConfInfo::parse(unset, false).unwrap().update_queues[0].params,
            [("capacity".to_owned(), None)]
        );
    }

    #[test]
    fn white_space_values_empty_maps_and_an_empty_sub_cluster_read_as_hadoop_means_them() {
        let xml = br#"<sched-conf><update-queue><queue-name>root</queue-name><params>
            <entry><key>acl_administer_queue</key><value> </value></entry>
            <entry><key>acl_submit_applications</key><value> ops</value></entry>
            </params></update-queue><add-queue><queue-name>root.b</queue-name><params/>
            </add-queue><global-updates></global-updates></sched-conf>"#;
        let update = SchedConfInfo::parse(xml, true).unwrap();
        assert_eq!(
            update.update_queues[0].params,
            [
                ("acl_administer_queue".to_owned(), Some(" ".to_owned())),
                (
                    "acl_submit_applications".to_owned(),
                    Some(" ops".to_owned())
                )
            ],
            "one space means nobody, a leading space a group"
        );
        assert!(update.add_queues[0].params.is_empty());
        let json = br#"{"subClusterId": "", "add-queue": {"queue-name": "root.b", "params": {}}}"#;
        assert_eq!(
            SchedConfInfo::parse(json, false).unwrap().add_queues.len(),
            1
        );
    }

    #[test]
    fn bodies_that_are_not_a_sched_conf_say_why() {
        for (body, xml, reason) in [
            (&b"{\"subClusterId\": \"sc1\"}"[..], false, "not federated"),
            (b"{\"colour\": 1}", false, "unknown field `colour`"),
            (
                b"{\"add-queue\": {\"params\": {\"entry\": []}}}",
                false,
                "missing field `queue-name`",
            ),
            (b"<configuration/>", true, "not <sched-conf>"),
            (
                b"<sched-conf><remove-queue>a</sched-conf>",
                true,
                "XML at byte",
            ),
            (
                b"<sched-conf><remove-queue>a</remove-queue>",
                true,
                "<sched-conf> is not closed",
            ),
            (b"<sched-conf/><sched-conf/>", true, "a second root element"),
            (
                b"{\"remove-queue\": \"root.a\"}",
                true,
                "the body is not XML",
            ),
        ] {
            let refusal = SchedConfInfo::parse(body, xml).unwrap_err().to_string();
            assert!(refusal.contains(reason), "{reason} in {refusal}");
        }
    }
}

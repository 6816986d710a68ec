//! The arguments of rmadmin's node-label verbs, read as Hadoop's RMAdminCLI reads them:
//! `label1(exclusive=true),label2(exclusive=false),label3` for `-addToClusterNodeLabels`,
//! `label1,label2` for `-removeFromClusterNodeLabels`, and
//! `"node1[:port]=label1 node2[:port]=label2"` for `-replaceLabelsOnNode`. Names are checked by
//! the ResourceManager; only the shape is checked here.

use yarn_proto::pb;

use crate::Error;

const ADD: &str = "-addToClusterNodeLabels";
const REMOVE: &str = "-removeFromClusterNodeLabels";
const REPLACE: &str = "-replaceLabelsOnNode";

/// The labels of `-addToClusterNodeLabels`, exclusive unless `(exclusive=false)`.
///
/// # Errors
///
/// [`Error::InvalidAdminArgument`] for a malformed item or none at all.
pub fn labels_to_add(argument: &str) -> Result<Vec<pb::NodeLabelProto>, Error> {
    let invalid = |message: &str| Error::InvalidAdminArgument {
        option: ADD,
        message: message.to_owned(),
    };
    let malformed = || {
        invalid(
            "Input format for adding node-labels is not correct, it should be \
             labelName1[(exclusive=true/false)],LabelName2[] ..",
        )
    };
    let mut labels = Vec::new();
    for item in argument.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, exclusive) = match item.split_once('(') {
            None if !item.contains(')') => (item, true),
            None => return Err(malformed()),
            Some((name, rest)) => {
                let inner = rest.strip_suffix(')').ok_or_else(malformed)?;
                let exclusive = match inner.trim() {
                    "" => true,
                    setting => match setting.split_once('=') {
                        Some((key, value)) if key.trim() == "exclusive" => match value.trim() {
                            "true" => true,
                            "false" => false,
                            _ => return Err(malformed()),
                        },
                        _ => return Err(malformed()),
                    },
                };
                (name.trim(), exclusive)
            }
        };
        labels.push(pb::NodeLabelProto {
            name: name.to_owned(),
            is_exclusive: Some(exclusive),
        });
    }
    if labels.is_empty() {
        return Err(invalid("No cluster node-labels are specified"));
    }
    Ok(labels)
}

/// The labels of `-removeFromClusterNodeLabels`.
///
/// # Errors
///
/// [`Error::InvalidAdminArgument`] when none is given.
pub fn labels_to_remove(argument: &str) -> Result<Vec<String>, Error> {
    let labels: Vec<String> = argument
        .split(',')
        .map(str::trim)
        .filter(|label| !label.is_empty())
        .map(str::to_owned)
        .collect();
    if labels.is_empty() {
        return Err(Error::InvalidAdminArgument {
            option: REMOVE,
            message: "No cluster node-labels are specified".to_owned(),
        });
    }
    Ok(labels)
}

/// The mappings of `-replaceLabelsOnNode`: whitespace-separated `node[:port]=labels` (also
/// Hadoop's older `node,labels`); a node without a port is every NodeManager on the host
/// (port 0), one without labels loses its label; items starting with `#` are skipped.
///
/// # Errors
///
/// [`Error::InvalidAdminArgument`] for an empty node name, a port that is not a number, or no
/// mapping at all.
pub fn node_to_labels(argument: &str) -> Result<Vec<pb::NodeIdToLabelsProto>, Error> {
    let invalid = |message: String| Error::InvalidAdminArgument {
        option: REPLACE,
        message,
    };
    let mut mappings = Vec::new();
    for item in argument
        .split_whitespace()
        .filter(|item| !item.starts_with('#'))
    {
        let (node, labels) = item
            .split_once('=')
            .or_else(|| item.split_once(','))
            .unwrap_or((item, ""));
        let node = node.trim();
        if node.is_empty() {
            return Err(invalid("node name cannot be empty".to_owned()));
        }
        let (host, port) = match node.rsplit_once(':') {
            Some((host, port)) => {
                let port = port.parse::<u16>().map_err(|_| {
                    invalid(format!("{node}: the port is not a number from 0 to 65535"))
                })?;
                (host, i32::from(port))
            }
            None => (node, 0),
        };
        if host.is_empty() {
            return Err(invalid("node name cannot be empty".to_owned()));
        }
        mappings.push(pb::NodeIdToLabelsProto {
            node_id: Some(pb::NodeIdProto {
                host: host.to_owned(),
                port,
            }),
            node_labels: labels
                .split(',')
                .map(str::trim)
                .filter(|label| !label.is_empty())
                .map(str::to_owned)
                .collect(),
        });
    }
    if mappings.is_empty() {
        return Err(invalid(
            "No node-to-labels mappings are specified".to_owned(),
        ));
    }
    Ok(mappings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_to_add_read_hadoops_exclusivity_syntax() {
        let labels = labels_to_add("gpu(exclusive=false), ssd ,fpga(exclusive=true),x()").unwrap();
        let read: Vec<(&str, Option<bool>)> = labels
            .iter()
            .map(|l| (l.name.as_str(), l.is_exclusive))
            .collect();
        assert_eq!(
            read,
            [
                ("gpu", Some(false)),
                ("ssd", Some(true)),
                ("fpga", Some(true)),
                ("x", Some(true))
            ]
        );
        for bad in [
            "gpu(exclusive=maybe)",
            "gpu(shared=true)",
            "gpu(exclusive=true",
            "gpu)",
        ] {
            let err = labels_to_add(bad).unwrap_err().to_string();
            assert!(
                err.contains("Input format for adding node-labels"),
                "{bad}: {err}"
            );
        }
        let err = labels_to_add(" , ").unwrap_err().to_string();
        assert!(
            err.contains("No cluster node-labels are specified"),
            "{err}"
        );
    }

    #[test]
    fn node_to_labels_read_hosts_ports_and_clearing() {
        let mappings = node_to_labels("h1=gpu h2:8041=ssd\n h3= #comment h4,fpga").unwrap();
        let read: Vec<(String, i32, Vec<String>)> = mappings
            .into_iter()
            .map(|m| {
                let node = m.node_id.unwrap();
                (node.host, node.port, m.node_labels)
            })
            .collect();
        assert_eq!(
            read,
            [
                ("h1".to_owned(), 0, vec!["gpu".to_owned()]),
                ("h2".to_owned(), 8041, vec!["ssd".to_owned()]),
                ("h3".to_owned(), 0, vec![]),
                ("h4".to_owned(), 0, vec!["fpga".to_owned()]),
            ]
        );
        for (bad, says) in [
            ("=gpu", "node name cannot be empty"),
            ("h1:x=gpu", "the port is not a number"),
            ("  ", "No node-to-labels mappings are specified"),
        ] {
            let err = node_to_labels(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert!(labels_to_remove(",").is_err());
        assert_eq!(labels_to_remove("a, b").unwrap(), ["a", "b"]);
    }
}

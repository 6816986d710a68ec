//! The arguments of `yarn-ha schedulerconf`, read as Hadoop's SchedConfCLI reads them:
//! `-add "root.a.b:capacity=10,state=RUNNING;root.a.c:capacity=0"`,
//! `-remove "root.a.b;root.a.c"`, `-update "root.a:capacity=40"` and
//! `-global key=value,key2=value2`. A `\,` is a comma inside a value; `key=` unsets the key.

use yarn_proto::pb;

use crate::Error;

/// Hadoop's refusal of a parameter that is not `key=value`.
const NOT_KEY_VALUE: &str = "Specify configuration key value as confKey=confVal.";

/// The mutation the four options describe, each absent or Hadoop's argument.
///
/// # Errors
///
/// [`Error::InvalidAdminArgument`] naming the option for a parameter that is not `key=value`
/// or a queue without a path, and for a change that changes nothing.
pub fn update_request(
    add: Option<&str>,
    remove: Option<&str>,
    update: Option<&str>,
    global: Option<&str>,
) -> Result<pb::UpdateSchedulerConfigurationRequestProto, Error> {
    let request = pb::UpdateSchedulerConfigurationRequestProto {
        remove_queues: remove
            .map(|queues| {
                queues
                    .split(';')
                    .map(str::trim)
                    .filter(|queue| !queue.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        add_queues: queues("-add", add)?,
        update_queues: queues("-update", update)?,
        global_updates: global
            .map(|params| key_values("-global", params))
            .transpose()?
            .unwrap_or_default(),
    };
    if request.remove_queues.is_empty()
        && request.add_queues.is_empty()
        && request.update_queues.is_empty()
        && request.global_updates.is_empty()
    {
        return Err(Error::InvalidAdminArgument {
            option: "schedulerconf",
            message: "the change names no queue and no key".to_owned(),
        });
    }
    Ok(request)
}

/// `path:key=value,...;path:...` as queues and their parameters.
fn queues(
    option: &'static str,
    argument: Option<&str>,
) -> Result<Vec<pb::SchedConfQueueProto>, Error> {
    let Some(argument) = argument else {
        return Ok(Vec::new());
    };
    argument
        .split(';')
        .filter(|queue| !queue.trim().is_empty())
        .map(|queue| {
            // Only the path is trimmed: a value of one space is an ACL meaning nobody.
            let (path, params) = queue.split_once(':').unwrap_or((queue, ""));
            if path.trim().is_empty() {
                return Err(Error::InvalidAdminArgument {
                    option,
                    message: format!("{queue:?} names no queue"),
                });
            }
            Ok(pb::SchedConfQueueProto {
                queue: path.trim().to_owned(),
                params: key_values(option, params)?,
            })
        })
        .collect()
}

/// `key=value,...`, `\,` a comma inside a value, `key=` a key to unset.
fn key_values(option: &'static str, params: &str) -> Result<Vec<pb::SchedConfParamProto>, Error> {
    let mut items = Vec::new();
    let mut item = String::new();
    let mut chars = params.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                item.push(',');
                chars.next();
            }
            ',' => items.push(std::mem::take(&mut item)),
            c => item.push(c),
        }
    }
    items.push(item);
    items
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            let invalid = || Error::InvalidAdminArgument {
                option,
                message: format!("{item:?}: {NOT_KEY_VALUE}"),
            };
            let (key, value) = item.split_once('=').ok_or_else(invalid)?;
            if key.trim().is_empty() || value.contains('=') {
                return Err(invalid());
            }
            Ok(pb::SchedConfParamProto {
                key: key.trim().to_owned(),
                value: (!value.is_empty()).then(|| value.to_owned()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(key: &str, value: Option<&str>) -> pb::SchedConfParamProto {
        pb::SchedConfParamProto {
            key: key.to_owned(),
            value: value.map(str::to_owned),
        }
    }

    #[test]
    fn hadoops_argument_syntax() {
        let request = update_request(
            Some("root.a.b:capacity=10,acl_submit_applications=alice\\,bob;root.c:capacity=0"),
            Some("root.x; root.y"),
            Some("root.a:maximum-capacity="),
            Some("yarn.scheduler.capacity.maximum-applications=500"),
        )
        .unwrap();
        assert_eq!(request.remove_queues, ["root.x", "root.y"]);
        assert_eq!(request.add_queues.len(), 2);
        assert_eq!(
            request.add_queues[0].params,
            [
                param("capacity", Some("10")),
                param("acl_submit_applications", Some("alice,bob"))
            ]
        );
        assert_eq!(request.add_queues[1].queue, "root.c");
        assert_eq!(
            request.update_queues[0].params,
            [param("maximum-capacity", None)],
            "key= unsets"
        );
        assert_eq!(
            request.global_updates,
            [param(
                "yarn.scheduler.capacity.maximum-applications",
                Some("500")
            )]
        );
    }

    #[test]
    fn parameters_that_are_not_key_value_are_refused_naming_the_option() {
        for (add, global) in [
            (Some("root.a:capacity"), None),
            (Some("root.a:=10"), None),
            (None, Some("a=b=c")),
            (Some(":capacity=1"), None),
        ] {
            let refusal = update_request(add, None, None, global)
                .unwrap_err()
                .to_string();
            assert!(
                refusal.starts_with(if add.is_some() { "-add: " } else { "-global: " }),
                "{refusal}"
            );
        }
    }
}

//! JSON placement rules (`mapping-rule-format=json`): the seed's nine-rule example, each
//! policy and variable, and the refusals of rules that cannot work.

use std::collections::BTreeMap;

use yarn_scheduler::{
    CapacitySchedulerConfiguration, MAPPING_RULE_FORMAT_KEY, MAPPING_RULE_JSON_FILE_KEY,
    MAPPING_RULE_JSON_KEY, Placement, QUEUE_MAPPINGS_KEY, QUEUE_MAPPINGS_OVERRIDE_KEY,
    SchedulerSettings, Submission,
};

/// A submission (user, groups, application name, named queue) and the leaf it lands in.
type Row<'a> = (&'a str, &'a [&'a str], &'a str, &'a str, &'a str);

/// The seed's example: developers, QA engineers and test developers.
const NINE_RULES: &str = r#"{
 "rules":[
   {"type": "group", "matches": "devs", "policy": "custom",
    "customPlacement": "root.users.devs", "fallbackResult":"skip"},
   {"type": "group", "matches": "qa", "policy": "primaryGroup",
    "parentQueue": "root.users.lowpriogroups", "fallbackResult":"skip"},
   {"type": "group", "matches": "qa-dev", "policy": "primaryGroup",
    "parentQueue": "root.users.highpriogroups", "fallbackResult":"skip"},
   {"type": "user", "matches": "*", "policy": "user", "fallbackResult":"skip"},
   {"type": "user", "matches": "*", "policy": "specified", "create": false,
    "fallbackResult":"skip"},
   {"type": "user", "matches": "*", "policy": "defaultQueue", "fallbackResult":"skip"},
   {"type": "user", "matches": "*", "policy": "setDefaultQueue",
    "value": "root.users.default", "fallbackResult": "skip"},
   {"type": "user", "matches": "*", "policy": "defaultQueue", "fallbackResult":"skip"},
   {"type":"user", "matches":"*", "policy":"reject"}
 ]
}"#;

/// `queues` (`path=child,child` lines, each child an equal share) with `extra` properties.
fn conf(
    queues: &[(&str, &str)],
    extra: &[(&str, &str)],
) -> Result<CapacitySchedulerConfiguration, String> {
    let mut properties = BTreeMap::new();
    for (path, children) in queues {
        let children: Vec<&str> = children.split(',').collect();
        properties.insert(
            format!("yarn.scheduler.capacity.{path}.queues"),
            children.join(","),
        );
        let share = 100.0 / children.len() as f64;
        for child in children {
            properties.insert(
                format!("yarn.scheduler.capacity.{path}.{child}.capacity"),
                format!("{share}"),
            );
        }
    }
    for (key, value) in extra {
        properties.insert((*key).to_owned(), (*value).to_owned());
    }
    CapacitySchedulerConfiguration::new(properties, SchedulerSettings::default())
        .map_err(|err| err.to_string())
}

fn json(
    rules: &str,
    with_root_default: bool,
    with_users_default: bool,
) -> CapacitySchedulerConfiguration {
    let root = if with_root_default {
        "default,users"
    } else {
        "users"
    };
    let users = if with_users_default {
        "devs,lowpriogroups,highpriogroups,alice,adhoc,default"
    } else {
        "devs,lowpriogroups,highpriogroups,alice,adhoc"
    };
    conf(
        &[
            ("root", root),
            ("root.users", users),
            ("root.users.lowpriogroups", "qa"),
            ("root.users.highpriogroups", "qa-dev"),
        ],
        &[
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (MAPPING_RULE_JSON_KEY, rules),
            (QUEUE_MAPPINGS_OVERRIDE_KEY, "true"),
        ],
    )
    .unwrap()
}

/// Where the rules of `conf` send `user` of `groups` submitting `application` to `queue`: the
/// leaf and the rule's position, or the refusal.
fn place(
    conf: &CapacitySchedulerConfiguration,
    user: &str,
    groups: &[&str],
    application: &str,
    queue: &str,
) -> Result<(String, String), String> {
    let groups: Vec<String> = groups.iter().map(|g| (*g).to_owned()).collect();
    let submission = Submission {
        user,
        groups: &groups,
        application_name: application,
        queue,
    };
    match conf.placement_rules().place(conf, &submission)? {
        Placement::Placed { queue, rule, .. } => Ok((queue, rule)),
        Placement::Fallback { queue, rule, .. } => Ok((queue, format!("{rule} fallback"))),
        Placement::AsSubmitted => Ok((queue.to_owned(), "as submitted".to_owned())),
    }
}

/// The rule's position in a name `rule N (...)`.
fn position(rule: &str) -> &str {
    rule.split_whitespace().nth(1).unwrap_or_default()
}

#[test]
fn the_seeds_nine_rule_example_places_as_it_describes() {
    let with_default = json(NINE_RULES, true, true);
    // (user, groups, application, specified) to (leaf, rule position).
    let table: [(Row<'_>, &str); 8] = [
        (("dev1", &["devs"], "a", "", "root.users.devs"), "1"),
        (
            ("tester", &["qa"], "a", "", "root.users.lowpriogroups.qa"),
            "2",
        ),
        (
            (
                "tdev",
                &["qa-dev"],
                "a",
                "",
                "root.users.highpriogroups.qa-dev",
            ),
            "3",
        ),
        // The group matches, but its queue is named by the primary group, which has none.
        (("yuki", &["staff", "qa"], "a", "", "root.default"), "6"),
        (
            (
                "alice",
                &["staff"],
                "a",
                "root.users.adhoc",
                "root.users.alice",
            ),
            "4",
        ),
        (("carol", &["staff"], "a", "adhoc", "root.users.adhoc"), "5"),
        (
            (
                "carol",
                &["staff"],
                "a",
                "root.users.nosuch",
                "root.default",
            ),
            "6",
        ),
        (("carol", &["staff"], "a", "default", "root.default"), "6"),
    ];
    for ((user, groups, application, specified, leaf), rule) in table {
        let (queue, name) = place(&with_default, user, groups, application, specified)
            .unwrap_or_else(|err| panic!("{user}: {err}"));
        assert_eq!(
            (queue.as_str(), position(&name)),
            (leaf, rule),
            "{user} {specified:?}"
        );
    }
    // Without root.default, rule 7 moves the default and rule 8 places there.
    let moved_default = json(NINE_RULES, false, true);
    let (queue, rule) = place(&moved_default, "carol", &["staff"], "a", "").unwrap();
    assert_eq!(
        (queue.as_str(), position(&rule)),
        ("root.users.default", "8")
    );
    // Without either, the last rule rejects, and the refusal lists what was tried.
    let no_default = json(NINE_RULES, false, false);
    let refusal = place(&no_default, "carol", &["staff"], "a", "").unwrap_err();
    assert!(
        refusal.starts_with("Application submission have been rejected by a mapping rule"),
        "{refusal}"
    );
    for tried in [
        "rule 4 (user:* user): Queue 'carol' specified in mapping rule does not exist. Skipped.",
        "rule 5 (user:* specified): Invalid path returned by rule: ''",
        "rule 7 (user:* setDefaultQueue value=root.users.default): the default queue is now \
         root.users.default",
        "rule 9 (user:* reject): rejects",
    ] {
        assert!(refusal.contains(tried), "{tried} in {refusal}");
    }
}

/// One rule per policy, each matched by its own application name.
const EVERY_POLICY: &str = r#"{"rules": [
  {"type": "user", "matches": "mallory", "policy": "reject"},
  {"type": "application", "matches": "p-user", "policy": "user", "parentQueue": "root.users"},
  {"type": "application", "matches": "p-primary", "policy": "primaryGroup",
   "parentQueue": "root.groups"},
  {"type": "application", "matches": "p-primary-user", "policy": "primaryGroupUser",
   "parentQueue": "root.groups"},
  {"type": "application", "matches": "p-secondary", "policy": "secondaryGroup",
   "parentQueue": "root.groups"},
  {"type": "application", "matches": "p-secondary-user", "policy": "secondaryGroupUser",
   "parentQueue": "root.groups"},
  {"type": "application", "matches": "etl", "policy": "applicationName",
   "parentQueue": "root.apps"},
  {"type": "application", "matches": "p-specified", "policy": "specified"},
  {"type": "application", "matches": "p-default", "policy": "defaultQueue"},
  {"type": "application", "matches": "p-custom", "policy": "custom",
   "customPlacement": "root.users.%user"},
  {"type": "application", "matches": "p-custom-specified", "policy": "custom",
   "customPlacement": "root.%specified"},
  {"type": "application", "matches": "p-set", "policy": "setDefaultQueue",
   "value": "root.apps.%application"},
  {"type": "application", "matches": "p-set", "policy": "defaultQueue"},
  {"type": "group", "matches": "banned", "policy": "user", "parentQueue": "root.users",
   "fallbackResult": "reject"},
  {"type": "application", "matches": "p-place-default", "policy": "user",
   "parentQueue": "root.users", "fallbackResult": "placeDefault"},
  {"type": "application", "matches": "p-skip", "policy": "user", "parentQueue": "root.users"},
  {"type": "application", "matches": "p-reject", "policy": "reject"}
]}"#;

fn every_policy(override_specified: &str) -> CapacitySchedulerConfiguration {
    conf(
        &[
            ("root", "default,users,groups,apps,special"),
            ("root.users", "alice,jo_dot_doe"),
            ("root.groups", "eng,ops"),
            ("root.groups.eng", "alice"),
            ("root.apps", "etl,p-set"),
        ],
        &[
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (MAPPING_RULE_JSON_KEY, EVERY_POLICY),
            (QUEUE_MAPPINGS_OVERRIDE_KEY, override_specified),
        ],
    )
    .unwrap()
}

#[test]
fn each_policy_and_variable_places_where_hadoop_would() {
    let conf = every_policy("true");
    // (user, groups, application, specified) to the leaf.
    let table: [Row<'_>; 13] = [
        ("alice", &["eng"], "p-user", "", "root.users.alice"),
        ("bob", &["ops", "eng"], "p-primary", "", "root.groups.ops"),
        (
            "alice",
            &["eng"],
            "p-primary-user",
            "",
            "root.groups.eng.alice",
        ),
        // The first secondary group with a queue under the parent.
        (
            "bob",
            &["staff", "nosuch", "ops"],
            "p-secondary",
            "",
            "root.groups.ops",
        ),
        (
            "alice",
            &["staff", "eng"],
            "p-secondary-user",
            "",
            "root.groups.eng.alice",
        ),
        ("alice", &[], "etl", "", "root.apps.etl"),
        ("alice", &[], "p-specified", "special", "root.special"),
        ("alice", &[], "p-specified", "root.special", "root.special"),
        ("alice", &[], "p-default", "", "root.default"),
        // A dot in a user name becomes _dot_.
        ("jo.doe", &[], "p-custom", "", "root.users.jo_dot_doe"),
        (
            "alice",
            &[],
            "p-custom-specified",
            "special",
            "root.special",
        ),
        // setDefaultQueue substitutes its value and goes on; the next rule uses it.
        ("alice", &[], "p-set", "", "root.apps.p-set"),
        ("zed", &[], "p-place-default", "", "root.default"),
    ];
    for (user, groups, application, specified, leaf) in table {
        let (queue, _) = place(&conf, user, groups, application, specified)
            .unwrap_or_else(|err| panic!("{application}: {err}"));
        assert_eq!(queue, leaf, "{user} {application} {specified:?}");
    }
    let (_, rule) = place(&conf, "zed", &[], "p-place-default", "").unwrap();
    assert!(
        rule.ends_with("fallback"),
        "placeDefault is a fallback: {rule}"
    );
    // A named queue is left alone without override.
    assert_eq!(
        place(
            &every_policy("false"),
            "alice",
            &["eng"],
            "p-user",
            "special"
        )
        .unwrap(),
        ("special".to_owned(), "as submitted".to_owned())
    );
    // skip goes on to the end of the chain; no rule placed, so the named queue stands.
    assert_eq!(
        place(&conf, "zed", &[], "p-skip", "").unwrap().1,
        "as submitted"
    );
    for (user, groups, application) in [
        ("mallory", &[][..], "p-user"),
        ("zed", &["banned"][..], "x"),
        ("alice", &[][..], "p-reject"),
    ] {
        let refusal = place(&conf, user, groups, application, "").unwrap_err();
        assert!(refusal.contains("rejected by a mapping rule"), "{refusal}");
    }
    // A user rule matches by user name, an application rule's * is a name like any other.
    assert!(place(&conf, "mallory", &[], "etl", "").is_err());
}

#[test]
fn rules_that_cannot_work_are_refused_naming_the_rule_and_why() {
    let refusal = |rules: &str| {
        conf(
            &[("root", "default,users"), ("root.users", "alice")],
            &[
                (MAPPING_RULE_FORMAT_KEY, "json"),
                (MAPPING_RULE_JSON_KEY, rules),
            ],
        )
        .unwrap_err()
    };
    let rule = |fields: &str| format!(r#"{{"rules": [{{{fields}}}]}}"#);
    for (fields, reason) in [
        (
            r#""type": "user", "matches": "*", "policy": "user", "colour": "red""#,
            "unknown field `colour`",
        ),
        (
            r#""type": "user", "matches": "*", "policy": "primarygroup""#,
            "unknown variant `primarygroup`",
        ),
        (
            r#""matches": "*", "policy": "user""#,
            "missing field `type`",
        ),
        (
            r#""type": "user", "matches": "", "policy": "user""#,
            "Match string is empty",
        ),
        (
            r#""type": "group", "matches": "*", "policy": "user""#,
            "Cannot match '*' for groups",
        ),
        (
            r#""type": "user", "matches": "*", "policy": "custom""#,
            "custom queue is undefined",
        ),
        (
            r#""type": "user", "matches": "*", "policy": "setDefaultQueue""#,
            "default queue is undefined",
        ),
        (
            r#""type": "user", "matches": "*", "policy": "custom", "customPlacement": "root.nosuch""#,
            "no queue exists with name 'nosuch'",
        ),
        (
            r#""type": "user", "matches": "*", "policy": "custom", "customPlacement": "users""#,
            "non-leaf queue 'root.users'",
        ),
        (
            r#""type": "user", "matches": "*", "policy": "user", "parentQueue": "root.default""#,
            "'root.default' is a leaf queue",
        ),
        (
            r#""type": "user", "matches": "*", "policy": "user", "parentQueue": "root.nosuch""#,
            "No eligible parent found on path 'root.nosuch.%user'",
        ),
    ] {
        let refused = refusal(&rule(fields));
        assert!(
            refused.starts_with(&format!("key {MAPPING_RULE_JSON_KEY}: ")),
            "{refused}"
        );
        assert!(refused.contains(reason), "{reason} in {refused}");
    }
    // A document that is not JSON says where.
    let refused = refusal("{\"rules\": [\n  {\"type\": \"user\",,}\n]}");
    assert!(refused.contains("line 2 column"), "{refused}");
    // The rule is named by position.
    let refused = refusal(
        r#"{"rules": [{"type": "user", "matches": "*", "policy": "defaultQueue"},
                      {"type": "user", "matches": "*", "policy": "custom",
                       "customPlacement": "root.nosuch"}]}"#,
    );
    assert!(
        refused.contains("rule 2 (user:* custom customPlacement=root.nosuch)"),
        "{refused}"
    );
}

#[test]
fn the_format_decides_which_rules_apply_and_the_other_form_is_warned() {
    let queues = [("root", "default,eng")];
    let legacy = conf(
        &queues,
        &[
            (QUEUE_MAPPINGS_KEY, "u:%user:eng"),
            (MAPPING_RULE_JSON_KEY, r#"{"rules": []}"#),
        ],
    )
    .unwrap();
    assert_eq!(place(&legacy, "alice", &[], "a", "").unwrap().0, "root.eng");
    assert!(
        legacy
            .warnings()
            .iter()
            .any(|w| w.contains(MAPPING_RULE_JSON_KEY) && w.contains("is legacy")),
        "{:?}",
        legacy.warnings()
    );
    let json = conf(
        &queues,
        &[
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (QUEUE_MAPPINGS_KEY, "u:%user:eng"),
            (
                MAPPING_RULE_JSON_KEY,
                r#"{"rules": [{"type": "user", "matches": "*", "policy": "defaultQueue"}]}"#,
            ),
        ],
    )
    .unwrap();
    assert_eq!(
        place(&json, "alice", &[], "a", "").unwrap().0,
        "root.default"
    );
    assert!(
        json.warnings()
            .iter()
            .any(|w| w.contains(QUEUE_MAPPINGS_KEY) && w.contains("is json")),
        "{:?}",
        json.warnings()
    );
    let empty = conf(&queues, &[(MAPPING_RULE_FORMAT_KEY, "json")]).unwrap();
    assert_eq!(
        place(&empty, "alice", &[], "a", "").unwrap().1,
        "as submitted"
    );
    assert!(
        empty
            .warnings()
            .iter()
            .any(|w| w.contains("no placement rule applies")),
        "{:?}",
        empty.warnings()
    );
    let refused = conf(&queues, &[(MAPPING_RULE_FORMAT_KEY, "yaml")]).unwrap_err();
    assert!(
        refused.contains(MAPPING_RULE_FORMAT_KEY) && refused.contains("legacy or json"),
        "{refused}"
    );
    // Properties naming only a file did not come through the leader's reading of it.
    let refused = conf(
        &queues,
        &[
            (MAPPING_RULE_FORMAT_KEY, "json"),
            (MAPPING_RULE_JSON_FILE_KEY, "/etc/hadoop/rules.json"),
        ],
    )
    .unwrap_err();
    assert!(refused.contains("was not read"), "{refused}");
}

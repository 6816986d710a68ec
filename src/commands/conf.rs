//! `yarn-ha conf get`, `yarn-ha conf check` and (in `hadoop_client_conf`) `conf hadoop-client`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use yarn_amrmproxy::ProxyConfig;
use yarn_conf::{ConfError, Configuration, Daemon, Key, RmHaConfig, SiteReport, Verdict, keys};
use yarn_nodemanager::NmConfig;
use yarn_rm_ha::RmConfig;
use yarn_rm_ha::scheduling::{CAPACITY_SCHEDULER_XML, QueueConfigSource};
use yarn_scheduler::{SchedulerError, SchedulerSettings, heartbeat_key_warnings, key_verdict};
use yarn_security::{ConnectionLimits, Groups, TlsConfig};

use crate::cli::{ConfCheckArgs, ConfCommand};

/// Runs `conf get` or `conf check` against `conf_dir`, or the built-in defaults when none.
pub fn run(conf_dir: Option<&Path>, command: ConfCommand) -> anyhow::Result<ExitCode> {
    match command {
        ConfCommand::Get(args) => get(conf_dir, &args.key),
        ConfCommand::HadoopClient(args) => {
            super::hadoop_client_conf::run(conf_dir, &args.out, args.amrmproxy.as_ref())
        }
        ConfCommand::Check(args) => {
            let dir = conf_dir.context(
                "conf check needs a configuration directory: pass --conf-dir DIR or set YARN_CONF_DIR",
            )?;
            check(dir, &args)
        }
    }
}

/// Prints the effective value on stdout and where it came from on stderr, so scripts can use
/// `$(yarn-ha conf get KEY)`.
fn get(conf_dir: Option<&Path>, name: &str) -> anyhow::Result<ExitCode> {
    let conf = match conf_dir {
        Some(dir) => Configuration::load_dir(dir)?,
        None => Configuration::with_defaults()?,
    };
    let value = match declared_key(name) {
        Some(key) => Some(conf.get_string(&key)?),
        None => conf.get(name)?,
    };
    let Some(value) = value else {
        bail!("{name} is not set and is not a key yarn-ha reads (see conf/yarn-default.xml)");
    };
    match conf.source(name) {
        Some(location) => eprintln!("# from {location}"),
        None => eprintln!(
            "# derived from the defaults in {}",
            yarn_conf::DEFAULT_RESOURCE
        ),
    }
    println!("{value}");
    Ok(ExitCode::SUCCESS)
}

/// The declared key `name` refers to, including per-id forms such as
/// `yarn.resourcemanager.address.rm2`, whose unset value derives from the rm-id's hostname.
fn declared_key(name: &str) -> Option<Key> {
    if let Some(key) = keys::find(name) {
        return Some(key.clone());
    }
    let (base, id) = name.rsplit_once('.')?;
    keys::find(base)
        .filter(|key| key.per_id)
        .map(|key| key.for_id(id))
}

/// Lists every key both files set on stdout, each `honoured`, `warned` or `refused` with why;
/// collects every problem in both files instead of stopping at the first, prints them on
/// stderr and exits 1 when there is any.
fn check(dir: &Path, args: &ConfCheckArgs) -> anyhow::Result<ExitCode> {
    let mut problems: Vec<String> = Vec::new();
    let site = dir.join(yarn_conf::SITE_RESOURCE);
    if !site.is_file() {
        push_once(&mut problems, format!("{}: not found", site.display()));
    }
    let mut queues = None;
    match Configuration::load_dir(dir) {
        Ok(conf) => {
            list_site_keys(&conf, &mut problems);
            queues = check_yarn_site(&conf, args, &mut problems);
        }
        Err(err) => push_once(&mut problems, err.to_string()),
    }
    let scheduler = dir.join(CAPACITY_SCHEDULER_XML);
    if scheduler.is_file() {
        let mut conf = Configuration::new();
        match conf.add_resource_file(&scheduler) {
            Ok(()) => check_references(&conf, &mut problems),
            Err(err) => push_once(&mut problems, err.to_string()),
        }
        // With yarn-site.xml's scheduler settings when it has them, so that per-queue limits are
        // checked against the cluster's; Hadoop's defaults otherwise.
        let source = QueueConfigSource {
            file: Some(scheduler.clone()),
            ..queues.unwrap_or_else(default_queue_source)
        };
        check_queue_keys(&source, &mut problems);
    } else {
        push_once(&mut problems, format!("{}: not found", scheduler.display()));
    }
    if problems.is_empty() {
        println!("ok: {} and {}", site.display(), scheduler.display());
        return Ok(ExitCode::SUCCESS);
    }
    for problem in &problems {
        eprintln!("{problem}");
    }
    eprintln!("{} problem(s) in {}", problems.len(), dir.display());
    Ok(ExitCode::FAILURE)
}

/// Prints the verdict on every key `yarn-site.xml` sets (not the built-in defaults), as any
/// daemon would judge it, and records each refusal as a problem.
fn list_site_keys(conf: &Configuration, problems: &mut Vec<String>) {
    for key in SiteReport::of(conf, Daemon::Both, &key_verdict).keys {
        match &key.verdict {
            Verdict::Honoured => println!("honoured  {}", key.name),
            Verdict::Warned(warning) => println!("warned    {warning}"),
            Verdict::Refused(_) => {
                let refusal = key.refusal().map(|err| err.to_string()).unwrap_or_default();
                println!("refused   {refusal}");
                push_once(problems, refusal);
            }
        }
    }
}

/// Prints the verdict on every key `capacity-scheduler.xml` sets and records each refusal, then
/// any other problem of the queues the rest describes, as problems.
fn check_queue_keys(source: &QueueConfigSource, problems: &mut Vec<String>) {
    let file = match source.read() {
        Ok(file) => file,
        Err(err) => return push_once(problems, err.to_string()),
    };
    for warning in &file.warnings {
        println!("warned    {warning}");
    }
    let verdicts: Vec<(&String, &String, Verdict)> = file
        .properties
        .iter()
        .map(|(key, value)| (key, value, key_verdict(key, value)))
        .collect();
    let mut rest = file.properties.clone();
    for (key, _, verdict) in &verdicts {
        if matches!(verdict, Verdict::Refused(_)) {
            rest.remove(*key);
        }
    }
    // Honoured unless another key's value leaves it without effect.
    let without_effect = heartbeat_key_warnings(&file.properties);
    for (key, value, verdict) in verdicts {
        match verdict {
            Verdict::Honoured => match without_effect.get(key) {
                Some(warning) => println!("warned    {warning}"),
                None => println!("honoured  {key}"),
            },
            Verdict::Warned(warning) => println!("warned    {warning}"),
            Verdict::Refused(reason) => {
                // Worded and located as the ResourceManager refuses it.
                let refusal = file.locate(yarn_rm_ha::Error::InvalidQueueConfiguration {
                    file: source.describe(),
                    source: Box::new(SchedulerError::UnhonouredKey {
                        key: key.clone(),
                        value: value.trim().to_owned(),
                        reason,
                    }),
                });
                println!("refused   {refusal}");
                push_once(problems, refusal.to_string());
            }
        }
    }
    if let Err(err) = source.parse(rest) {
        push_once(problems, file.locate(err).to_string());
    }
}

/// A queue source with Hadoop's scheduler settings, for a `yarn-site.xml` that does not give
/// any.
fn default_queue_source() -> QueueConfigSource {
    QueueConfigSource {
        file: None,
        settings: SchedulerSettings::default(),
        groups: Groups::fixed(Default::default()),
    }
}

/// Checks every declared key and each daemon's typed config; returns the first
/// ResourceManager's queue source, whose scheduler settings `capacity-scheduler.xml` is checked
/// with.
fn check_yarn_site(
    conf: &Configuration,
    args: &ConfCheckArgs,
    problems: &mut Vec<String>,
) -> Option<QueueConfigSource> {
    let mut queues = None;
    for warning in conf.warnings() {
        eprintln!("warning: {warning}");
    }
    check_references(conf, problems);
    let rm_ids = conf.get_list(&keys::RM_HA_IDS).unwrap_or_default();
    for key in keys::ALL {
        if key.per_id {
            for id in &rm_ids {
                record(problems, conf.check(&key.for_id(id)));
            }
        }
        record(problems, conf.check(key));
    }
    match RmHaConfig::from_conf(conf) {
        Ok(ha) => {
            for member in &ha.members {
                record(problems, RmConfig::from_conf(conf, Some(&member.rm_id)));
            }
            if let Some(first) = ha.members.first()
                && let Ok(rm) = RmConfig::from_conf(conf, Some(&first.rm_id))
            {
                if let Some(reason) = rm.queues.settings.open_admin_rights() {
                    eprintln!(
                        "warning: {reason}: any user can remove ResourceManagers from the Raft \
                         group; set yarn.acl.enable to true and yarn.admin.acl to the \
                         administrators"
                    );
                }
                queues = Some(rm.queues);
            }
        }
        Err(err) => record::<()>(problems, Err(err)),
    }
    record(problems, NmConfig::from_conf(conf));
    record(problems, ProxyConfig::from_conf(conf));
    record(problems, ConnectionLimits::from_conf(conf));
    if !args.no_files {
        if let Err(err) = TlsConfig::from_conf(conf) {
            push_once(problems, err.to_string());
        }
    }
    queues
}

/// Every property set in the file must substitute cleanly, declared or not.
fn check_references(conf: &Configuration, problems: &mut Vec<String>) {
    for name in conf.names() {
        record(problems, conf.get(name));
    }
}

fn record<T>(problems: &mut Vec<String>, result: Result<T, ConfError>) {
    if let Err(err) = result {
        push_once(problems, err.to_string());
    }
}

/// Several checks reach the same bad value (a key's getter and the typed config reading it);
/// the operator should see it once.
fn push_once(problems: &mut Vec<String>, message: String) {
    if !problems.contains(&message) {
        problems.push(message);
    }
}

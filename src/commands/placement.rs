//! `yarn-ha placement convert`: legacy queue mappings as a JSON rule document, by the seed's
//! conversion table.

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;
use yarn_conf::Configuration;
use yarn_scheduler::{APP_NAME_MAPPINGS_KEY, QUEUE_MAPPINGS_KEY, convert_legacy_rules};

use crate::cli::PlacementCommand;

/// Runs a `placement` subcommand.
pub fn run(command: &PlacementCommand) -> anyhow::Result<ExitCode> {
    match command {
        PlacementCommand::Convert(args) => {
            let (name, text) = match &args.file {
                Some(file) => (
                    file.display().to_string(),
                    yarn_conf::loader::read_file(file)?,
                ),
                None => {
                    let mut text = String::new();
                    std::io::stdin()
                        .read_to_string(&mut text)
                        .context("reading the legacy mappings from standard input")?;
                    ("standard input".to_owned(), text)
                }
            };
            let (queue_mappings, app_name_mappings) = legacy_mappings(&name, &text)?;
            let json = convert_legacy_rules(&queue_mappings, &app_name_mappings)
                .with_context(|| format!("converting the mappings of {name}"))?;
            println!("{json}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The user and group mappings and the application-name mappings of `text`: the two keys of a
/// Hadoop configuration file, or bare entries: those starting `u:` or `g:` or of three parts
/// user and group mappings (where a malformed one is refused), the others (`name:queue`)
/// application-name mappings.
fn legacy_mappings(name: &str, text: &str) -> anyhow::Result<(String, String)> {
    if text.trim_start().starts_with('<') {
        let mut conf = Configuration::new();
        conf.add_resource_str(name, text)?;
        let value = |key| conf.get(key).map(Option::unwrap_or_default);
        return Ok((value(QUEUE_MAPPINGS_KEY)?, value(APP_NAME_MAPPINGS_KEY)?));
    }
    let (users, applications): (Vec<&str>, Vec<&str>) = text
        .split([',', '\n'])
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .partition(|entry| {
            entry.starts_with("u:") || entry.starts_with("g:") || entry.split(':').count() == 3
        });
    Ok((users.join(","), applications.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_entries_and_configuration_files_give_the_same_mappings() {
        let bare =
            legacy_mappings("-", "u:%user:%user\n hive_query:root.query.hive,g:a:b\n\n").unwrap();
        assert_eq!(
            bare,
            (
                "u:%user:%user,g:a:b".to_owned(),
                "hive_query:root.query.hive".to_owned()
            )
        );
        let xml = yarn_conf::writer::site_xml([
            (QUEUE_MAPPINGS_KEY, "u:%user:%user,g:a:b"),
            (APP_NAME_MAPPINGS_KEY, "hive_query:root.query.hive"),
            ("yarn.scheduler.capacity.root.queues", "default"),
        ]);
        assert_eq!(
            legacy_mappings("capacity-scheduler.xml", &xml).unwrap(),
            bare
        );
        assert!(legacy_mappings("bad.xml", "<configuration><property>").is_err());
    }
}

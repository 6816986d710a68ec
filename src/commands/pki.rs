//! `yarn-ha pki init` and `yarn-ha pki issue`.

use std::process::ExitCode;

use yarn_security::Role;
use yarn_security::pki::{self, LeafSpec, PkiOptions};

use crate::cli::PkiCommand;

/// Creates the cluster CA and certificates, printing each file written.
pub fn run(command: PkiCommand) -> anyhow::Result<ExitCode> {
    let now = time::OffsetDateTime::now_utc();
    match command {
        PkiCommand::Init(args) => {
            let leaves: Vec<LeafSpec> = [
                (Role::ResourceManager, &args.rm_ids),
                (Role::NodeManager, &args.nm_hosts),
                (Role::User, &args.users),
            ]
            .into_iter()
            .flat_map(|(role, names)| names.iter().map(move |name| LeafSpec::new(role, name)))
            .collect();
            let options = PkiOptions {
                force: args.force,
                ..PkiOptions::starting_at(now)
            };
            for path in pki::init(&args.dir, &leaves, &options)? {
                println!("wrote {}", path.display());
            }
        }
        PkiCommand::Issue(args) => {
            let leaf = LeafSpec::new(args.role, &args.name).with_hosts(args.hosts);
            let options = PkiOptions {
                force: args.force,
                ..PkiOptions::starting_at(now)
            };
            let files = pki::issue(&args.dir, &leaf, &options)?;
            println!("wrote {}", files.cert.display());
            println!("wrote {}", files.key.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

//! `yarn-ha pki init` and `yarn-ha pki issue`.

use std::process::ExitCode;

use anyhow::Context;
use yarn_conf::{keys, writer};
use yarn_security::Role;
use yarn_security::pki::{self, LeafSpec, PkiOptions};

use crate::cli::PkiCommand;

/// The file `pki init --admins` writes, beside the certificates.
const ADMIN_ACL_FILE: &str = "admin-acl.xml";

/// Creates the cluster CA and certificates, printing each file written.
pub fn run(command: PkiCommand) -> anyhow::Result<ExitCode> {
    let now = time::OffsetDateTime::now_utc();
    match command {
        PkiCommand::Init(args) => {
            let mut users = args.users.clone();
            users.extend(
                args.admins
                    .iter()
                    .filter(|a| !args.users.contains(a))
                    .cloned(),
            );
            let leaves: Vec<LeafSpec> = [
                (Role::ResourceManager, &args.rm_ids),
                (Role::NodeManager, &args.nm_hosts),
                (Role::User, &users),
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
            if args.admins.is_empty() {
                println!(
                    "no --admins: with yarn.acl.enable false or yarn.admin.acl * (the \
                     defaults), every user can administer the cluster"
                );
            } else {
                let file = args.dir.join(ADMIN_ACL_FILE);
                let admins = args.admins.join(",");
                let xml = writer::site_xml([
                    (keys::YARN_ACL_ENABLE.name.as_ref(), "true"),
                    (keys::YARN_ADMIN_ACL.name.as_ref(), admins.as_str()),
                ]);
                std::fs::write(&file, xml)
                    .with_context(|| format!("writing {}", file.display()))?;
                println!(
                    "wrote {} (yarn.admin.acl = {admins}: copy it into every \
                     ResourceManager's yarn-site.xml)",
                    file.display()
                );
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

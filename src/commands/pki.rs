//! `yarn-ha pki init` and `yarn-ha pki issue`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use yarn_conf::{keys, writer};
use yarn_security::Role;
use yarn_security::pki::{self, LeafSpec, Pkcs12Output, PkiOptions};

use crate::cli::PkiCommand;

/// The file `pki init --admins` writes, beside the certificates.
const ADMIN_ACL_FILE: &str = "admin-acl.xml";

/// Where `pki issue --pkcs12` finds the bundle's password without `--pkcs12-password-file`.
const PKCS12_PASSWORD_ENV: &str = "YARN_HA_PKCS12_PASSWORD";

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
            // The password is settled before anything is written.
            let pkcs12 = match &args.pkcs12 {
                Some(path) => Some(Pkcs12Output::new(
                    path,
                    pkcs12_password(args.pkcs12_password_file.as_deref())?,
                )?),
                None => None,
            };
            let files = match &pkcs12 {
                Some(pkcs12) => pki::issue_with_pkcs12(&args.dir, &leaf, pkcs12, &options)?,
                None => pki::issue(&args.dir, &leaf, &options)?,
            };
            println!("wrote {}", files.cert.display());
            println!("wrote {}", files.key.display());
            if let Some(pkcs12) = &pkcs12 {
                println!("wrote {}", pkcs12.path().display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The PKCS#12 bundle's password: the first line of `file` (without its line ending), or
/// without a file the value of `YARN_HA_PKCS12_PASSWORD`. There is deliberately no way to
/// give it on the command line, where the host's other users could read it in the process
/// list.
fn pkcs12_password(file: Option<&Path>) -> anyhow::Result<String> {
    match file {
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("reading the PKCS#12 password file {}", file.display()))?;
            Ok(text.lines().next().unwrap_or_default().to_owned())
        }
        None => std::env::var(PKCS12_PASSWORD_ENV).with_context(|| {
            format!(
                "--pkcs12 needs the bundle's password: pass --pkcs12-password-file FILE or set \
                 {PKCS12_PASSWORD_ENV} (it is never taken from the command line)"
            )
        }),
    }
}

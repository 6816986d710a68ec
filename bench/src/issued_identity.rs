//! [`issue_identity`]: a further certificate from a minicluster's own CA, for a simulated
//! daemon or a second user.

use std::path::Path;

use anyhow::Context;
use yarn_security::pki::{self, LeafSpec, PkiOptions};
use yarn_security::{Role, TlsConfig, TlsFiles};

/// Issues a certificate for `role` named `name` from the cluster CA in `pki_dir` (valid from
/// now, files beside the others) and returns it as a TLS setting, ready for clients.
///
/// # Errors
///
/// When the CA cannot be read, the certificate exists already or cannot be written, or the
/// written files do not load.
pub(crate) fn issue_identity(pki_dir: &Path, role: Role, name: &str) -> anyhow::Result<TlsConfig> {
    pki::issue(
        pki_dir,
        &LeafSpec::new(role, name),
        &PkiOptions::starting_at(time::OffsetDateTime::now_utc()),
    )
    .with_context(|| {
        format!(
            "issuing a {role} certificate for {name} in {}",
            pki_dir.display()
        )
    })?;
    TlsConfig::from_files(&TlsFiles::in_pki_dir(pki_dir, role, name))
        .with_context(|| format!("loading the {role} certificate of {name}"))
}

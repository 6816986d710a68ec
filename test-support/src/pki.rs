//! [`Pki`]: a cluster CA and the leaf certificates a test asks for, in a temporary directory,
//! with the files, TLS settings and `yarn.tls.*` keys of each leaf.

use std::path::Path;

use tempfile::TempDir;
use time::OffsetDateTime;
use yarn_conf::Configuration;
use yarn_security::pki::{self, LeafSpec, PkiOptions};
use yarn_security::{Role, TlsConfig, TlsFiles};

/// A cluster CA and its leaves, valid from now; the directory is removed when dropped.
pub struct Pki {
    dir: TempDir,
}

impl Pki {
    /// Installs the crypto provider and creates the CA with `leaves`, as `yarn-ha pki init`
    /// does.
    pub fn new(leaves: &[LeafSpec]) -> Self {
        yarn_security::install_crypto_provider();
        let dir = tempfile::tempdir().expect("create the PKI directory");
        pki::init(
            dir.path(),
            leaves,
            &PkiOptions::starting_at(OffsetDateTime::now_utc()),
        )
        .expect("create the PKI");
        Self { dir }
    }

    /// The PKI directory, laid out as [`yarn_security::pki`] describes.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The CA, certificate and key files of `role`/`name`.
    pub fn files(&self, role: Role, name: &str) -> TlsFiles {
        TlsFiles::in_pki_dir(self.path(), role, name)
    }

    /// The TLS setting of `role`/`name`.
    pub fn tls(&self, role: Role, name: &str) -> TlsConfig {
        TlsConfig::from_files(&self.files(role, name))
            .unwrap_or_else(|e| panic!("TLS setting of {role}/{name}: {e}"))
    }

    /// Points the `yarn.tls.*` keys of `conf` at the files of `role`/`name`.
    pub fn set_tls(&self, conf: &mut Configuration, role: Role, name: &str) {
        set_tls_files(conf, &self.files(role, name));
    }
}

/// Points the `yarn.tls.*` keys of `conf` at `files`.
pub fn set_tls_files(conf: &mut Configuration, files: &TlsFiles) {
    conf.set("yarn.tls.ca-cert", &utf8(&files.ca_cert));
    conf.set("yarn.tls.cert", &utf8(&files.cert));
    conf.set("yarn.tls.key", &utf8(&files.key));
}

/// `path` as the string a configuration value needs.
pub(crate) fn utf8(path: &Path) -> String {
    path.to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", path.display()))
        .to_owned()
}

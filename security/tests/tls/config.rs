//! `TlsConfig::from_conf` validation: every error names the key and the path.

use yarn_security::{Error, Role, TlsConfig};

use crate::support::{conf_for, must_make_pki};

#[test]
fn valid_files_give_both_configs_and_the_own_identity() {
    let pki = must_make_pki();
    let tls = pki.tls_config(Role::NodeManager, "h1");
    assert!(tls.is_enabled());
    assert!(tls.server_config().is_some());
    assert!(tls.client_config().is_some());
    let identity = tls.identity().unwrap();
    assert_eq!(
        (identity.role, identity.name.as_str()),
        (Role::NodeManager, "h1")
    );
}

#[test]
fn missing_ca_cert_is_named() {
    let pki = must_make_pki();
    let mut conf = conf_for(&pki.ca.files(Role::User, "alice"));
    conf.set("yarn.tls.ca-cert", "");

    let err = TlsConfig::from_conf(&conf).unwrap_err();
    assert!(
        matches!(&err, Error::TlsSettingMissing { key } if key == "yarn.tls.ca-cert"),
        "{err:?}"
    );
    assert!(err.to_string().contains("yarn.tls.ca-cert"), "{err}");
}

#[test]
fn unreadable_file_is_named_with_its_key_and_path() {
    let pki = must_make_pki();
    let mut files = pki.ca.files(Role::User, "alice");
    files.cert = pki.ca.path().join("no-such-cert.pem");

    let err = TlsConfig::from_conf(&conf_for(&files)).unwrap_err();
    let Error::TlsSetting { key, source } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(key, "yarn.tls.cert");
    assert!(
        matches!(source.as_ref(), Error::Io { path, .. } if path == &files.cert),
        "{source:?}"
    );
    let message = err.to_string();
    assert!(message.contains("yarn.tls.cert"), "{message}");
    assert!(message.contains("no-such-cert.pem"), "{message}");
}

#[test]
fn key_that_is_not_pem_is_named() {
    let pki = must_make_pki();
    let mut files = pki.ca.files(Role::User, "alice");
    // A certificate where the key should be: PEM, but no key in it.
    files.key = files.cert.clone();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&files.key, std::fs::Permissions::from_mode(0o600)).unwrap();
    }

    let err = TlsConfig::from_conf(&conf_for(&files)).unwrap_err();
    assert!(
        matches!(&err, Error::TlsSetting { key, source }
            if key == "yarn.tls.key" && matches!(source.as_ref(), Error::Pem { .. })),
        "{err:?}"
    );
    assert!(err.to_string().contains("user-alice.pem"), "{err}");
}

#[cfg(unix)]
#[test]
fn key_readable_by_others_is_refused() {
    use std::os::unix::fs::PermissionsExt;

    let pki = must_make_pki();
    let files = pki.ca.files(Role::User, "alice");
    std::fs::set_permissions(&files.key, std::fs::Permissions::from_mode(0o644)).unwrap();

    let err = TlsConfig::from_conf(&conf_for(&files)).unwrap_err();
    assert!(
        matches!(&err, Error::TlsSetting { key, source }
            if key == "yarn.tls.key"
                && matches!(source.as_ref(), Error::KeyPermissions { mode: 0o644, .. })),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("user-alice-key.pem"), "{message}");
    assert!(message.contains("644"), "{message}");
}

#[test]
fn tls_is_enabled_by_default() {
    let err = TlsConfig::from_conf(&yarn_conf::Configuration::new()).unwrap_err();
    assert!(
        matches!(&err, Error::TlsSettingMissing { key } if key == "yarn.tls.ca-cert"),
        "{err:?}"
    );
}

//! `pki init` and `pki issue` against a real directory: file layout, modes, overwrite refusal,
//! missing CA and name validation.

use std::path::Path;

use time::OffsetDateTime;
use yarn_security::pki::{self, CA_CERT_FILE, CA_KEY_FILE, LeafFiles, LeafSpec, PkiOptions};
use yarn_security::{Error, PeerIdentity, Role, tls};

fn options() -> PkiOptions {
    PkiOptions::starting_at(OffsetDateTime::now_utc())
}

fn leaves() -> Vec<LeafSpec> {
    vec![
        LeafSpec::new(Role::ResourceManager, "rm1"),
        LeafSpec::new(Role::NodeManager, "h1"),
        LeafSpec::new(Role::User, "alice"),
    ]
}

fn identity_of(cert: &Path) -> PeerIdentity {
    let chain = tls::read_certificates(cert).unwrap();
    PeerIdentity::from_der(&chain[0]).unwrap()
}

#[test]
fn init_writes_ca_and_leaves_whose_subjects_carry_role_and_name() {
    let dir = tempfile::tempdir().unwrap();
    let written = pki::init(dir.path(), &leaves(), &options()).unwrap();

    assert_eq!(
        written.len(),
        8,
        "CA and three leaves, certificate and key each"
    );
    assert!(dir.path().join(CA_CERT_FILE).is_file());
    assert!(dir.path().join(CA_KEY_FILE).is_file());
    let nm = LeafFiles::new(dir.path(), Role::NodeManager, "h1");
    assert_eq!(nm.cert, dir.path().join("nodemanager-h1.pem"));
    assert_eq!(nm.key, dir.path().join("nodemanager-h1-key.pem"));
    assert_eq!(
        identity_of(&nm.cert),
        PeerIdentity {
            role: Role::NodeManager,
            name: "h1".to_owned()
        }
    );
    // The key is usable (PEM, private mode) by the TLS loader.
    tls::read_private_key(&nm.key).unwrap();
}

#[cfg(unix)]
#[test]
fn keys_are_private_and_certificates_are_not() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().unwrap();
    pki::init(dir.path(), &leaves(), &options()).unwrap();
    let mode = |name: &str| {
        std::fs::metadata(dir.path().join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    for key in [
        CA_KEY_FILE,
        "resourcemanager-rm1-key.pem",
        "user-alice-key.pem",
    ] {
        assert_eq!(mode(key), 0o600, "{key}");
    }
    assert_eq!(
        mode(CA_CERT_FILE) & 0o044,
        0o044,
        "certificates are world-readable"
    );
}

#[test]
fn init_refuses_to_overwrite_without_force_and_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    pki::init(dir.path(), &leaves(), &options()).unwrap();
    let ca_before = std::fs::read(dir.path().join(CA_CERT_FILE)).unwrap();

    let err = pki::init(dir.path(), &leaves(), &options()).unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { path } if path == &dir.path().join(CA_CERT_FILE)),
        "{err:?}"
    );
    assert!(err.to_string().contains("ca.pem"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join(CA_CERT_FILE)).unwrap(),
        ca_before,
        "nothing was replaced"
    );

    let forced = PkiOptions {
        force: true,
        ..options()
    };
    pki::init(dir.path(), &leaves(), &forced).unwrap();
    assert_ne!(
        std::fs::read(dir.path().join(CA_CERT_FILE)).unwrap(),
        ca_before,
        "force made a new CA"
    );
}

#[cfg(unix)]
#[test]
fn force_replaces_a_too_open_key_with_a_private_one() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().unwrap();
    pki::init(dir.path(), &leaves(), &options()).unwrap();
    let key = dir.path().join("user-alice-key.pem");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();

    let forced = PkiOptions {
        force: true,
        ..options()
    };
    pki::issue(dir.path(), &LeafSpec::new(Role::User, "alice"), &forced).unwrap();
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn issue_adds_a_leaf_signed_by_the_existing_ca() {
    let dir = tempfile::tempdir().unwrap();
    pki::init(dir.path(), &[], &options()).unwrap();
    let spec = LeafSpec::new(Role::NodeManager, "h2.example.com").with_hosts(["10.0.0.7"]);
    let files = pki::issue(dir.path(), &spec, &options()).unwrap();
    assert_eq!(
        files.cert,
        dir.path().join("nodemanager-h2.example.com.pem")
    );
    assert_eq!(identity_of(&files.cert).name, "h2.example.com");

    let err = pki::issue(dir.path(), &spec, &options()).unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { path } if path == &files.cert),
        "{err:?}"
    );
}

#[test]
fn issue_without_a_ca_fails_naming_the_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let err = pki::issue(dir.path(), &LeafSpec::new(Role::User, "bob"), &options()).unwrap_err();
    assert!(
        matches!(&err, Error::MissingCa { path } if path == &dir.path().join(CA_CERT_FILE)),
        "{err:?}"
    );
    assert!(err.to_string().contains("ca.pem"), "{err}");
    assert!(
        !dir.path().join("user-bob.pem").exists(),
        "nothing written without a CA"
    );
}

#[test]
fn bad_names_are_rejected_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["", "al ice", "../x", "bob/evil"] {
        let leaves = [
            LeafSpec::new(Role::User, "alice"),
            LeafSpec::new(Role::User, bad),
        ];
        let err = pki::init(dir.path(), &leaves, &options()).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidName { value, .. } if value == bad),
            "{bad:?}: {err:?}"
        );
    }
    assert!(
        !dir.path().join(CA_CERT_FILE).exists(),
        "validation precedes writing"
    );

    let twice = [
        LeafSpec::new(Role::User, "alice"),
        LeafSpec::new(Role::User, "alice"),
    ];
    let err = pki::init(dir.path(), &twice, &options()).unwrap_err();
    assert!(matches!(
        err,
        Error::DuplicateCertificate {
            role: Role::User,
            ..
        }
    ));
}

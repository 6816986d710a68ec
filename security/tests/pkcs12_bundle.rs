//! `pki issue --pkcs12`'s bundle against a real directory: it opens with its password (and only
//! with it), holds the issued certificate, a key matching it and the CA, is private, and is
//! never written over an existing file without `force`. When `openssl` is on the machine, it
//! must read the bundle too, as browsers' importers do.

use std::path::Path;
use std::process::Command;

use p12_keystore::{KeyStore, Pkcs12ImportPolicy};
use rcgen::KeyPair;
use rustls::pki_types::PrivateKeyDer;
use time::OffsetDateTime;
use x509_parser::prelude::{FromDer, X509Certificate};
use yarn_security::pki::{self, CA_CERT_FILE, LeafFiles, LeafSpec, Pkcs12Output, PkiOptions};
use yarn_security::{Error, Role, tls};

const PASSWORD: &str = "correct horse battery staple";

fn options() -> PkiOptions {
    PkiOptions::starting_at(OffsetDateTime::now_utc())
}

/// A cluster CA in `dir` and `user/alice` issued with her bundle at `dir/alice.p12`.
fn must_issue_alice(dir: &Path) -> (LeafFiles, Pkcs12Output) {
    pki::init(dir, &[], &options()).unwrap();
    let output = Pkcs12Output::new(dir.join("alice.p12"), PASSWORD.to_owned()).unwrap();
    let files = pki::issue_with_pkcs12(
        dir,
        &LeafSpec::new(Role::User, "alice"),
        &output,
        &options(),
    )
    .unwrap();
    (files, output)
}

fn pkcs8(files: &LeafFiles) -> Vec<u8> {
    match tls::read_private_key(&files.key).unwrap() {
        PrivateKeyDer::Pkcs8(key) => key.secret_pkcs8_der().to_vec(),
        other => panic!("pki writes PKCS#8 keys, not {other:?}"),
    }
}

#[test]
fn the_bundle_holds_the_issued_certificate_a_key_matching_it_and_the_ca() {
    let dir = tempfile::tempdir().unwrap();
    let (files, output) = must_issue_alice(dir.path());
    let bundle = std::fs::read(output.path()).unwrap();

    let store = KeyStore::from_pkcs12(&bundle, PASSWORD, Pkcs12ImportPolicy::Strict).unwrap();
    let (alias, chain) = store.private_key_chain().expect("a key with its chain");
    assert_eq!(alias, "yarn-ha user/alice");
    let certificate = &tls::read_certificates(&files.cert).unwrap()[0];
    let ca = &tls::read_certificates(&dir.path().join(CA_CERT_FILE)).unwrap()[0];
    let in_bundle: Vec<&[u8]> = chain.certs().iter().map(|cert| cert.as_der()).collect();
    assert_eq!(in_bundle, [certificate.as_ref(), ca.as_ref()]);
    assert_eq!(chain.key().as_der(), pkcs8(&files));
    // And the key is the certificate's: its public half is the certificate's public key.
    let key = KeyPair::try_from(chain.key().as_der()).unwrap();
    let (_, parsed) = X509Certificate::from_der(certificate).unwrap();
    assert_eq!(
        key.public_key_raw(),
        parsed.public_key().subject_public_key.data.as_ref()
    );

    assert!(
        KeyStore::from_pkcs12(&bundle, "wrong", Pkcs12ImportPolicy::Strict).is_err(),
        "a wrong password must not open the bundle"
    );
}

#[cfg(unix)]
#[test]
fn the_bundle_is_private() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().unwrap();
    let (_, output) = must_issue_alice(dir.path());
    let mode = std::fs::metadata(output.path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn openssl_reads_the_bundle_with_its_password_and_finds_the_same_certificate_and_key() {
    if Command::new("openssl").arg("version").output().is_err() {
        eprintln!("openssl is not installed: the bundle is checked by p12-keystore alone");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (files, output) = must_issue_alice(dir.path());
    let password_file = dir.path().join("password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
    let passin = format!("file:{}", password_file.display());
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let bundle = output.path().to_str().unwrap();
    openssl(&[
        "pkcs12", "-in", bundle, "-info", "-noout", "-passin", &passin,
    ]);

    let extracted = dir.path().join("extracted.pem");
    let extracted = extracted.to_str().unwrap();
    openssl(&[
        "pkcs12", "-in", bundle, "-clcerts", "-nokeys", "-passin", &passin, "-out", extracted,
    ]);
    assert_eq!(
        tls::read_certificates(Path::new(extracted)).unwrap(),
        tls::read_certificates(&files.cert).unwrap()
    );
    let key = dir.path().join("extracted-key.pem");
    let key = key.to_str().unwrap();
    openssl(&[
        "pkcs12", "-in", bundle, "-nocerts", "-noenc", "-passin", &passin, "-out", key,
    ]);
    let certificate = files.cert.to_str().unwrap();
    assert_eq!(
        openssl(&["pkey", "-in", key, "-pubout"]),
        openssl(&["x509", "-in", certificate, "-pubkey", "-noout"]),
        "the bundle's key is not the certificate's"
    );
    let wrong = Command::new("openssl")
        .args([
            "pkcs12",
            "-in",
            bundle,
            "-info",
            "-noout",
            "-passin",
            "pass:wrong",
        ])
        .output()
        .unwrap();
    assert!(
        !wrong.status.success(),
        "openssl opened the bundle with a wrong password"
    );
}

#[test]
fn an_existing_bundle_is_not_replaced_without_force_and_nothing_is_issued() {
    let dir = tempfile::tempdir().unwrap();
    pki::init(dir.path(), &[], &options()).unwrap();
    let path = dir.path().join("bob.p12");
    std::fs::write(&path, "kept").unwrap();
    let output = Pkcs12Output::new(&path, PASSWORD.to_owned()).unwrap();
    let bob = LeafSpec::new(Role::User, "bob");

    let err = pki::issue_with_pkcs12(dir.path(), &bob, &output, &options()).unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { path: existing } if *existing == path),
        "{err:?}"
    );
    assert!(err.to_string().contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept");
    assert!(!LeafFiles::new(dir.path(), Role::User, "bob").cert.exists());

    let forced = PkiOptions {
        force: true,
        ..options()
    };
    pki::issue_with_pkcs12(dir.path(), &bob, &output, &forced).unwrap();
    let bundle = std::fs::read(&path).unwrap();
    KeyStore::from_pkcs12(&bundle, PASSWORD, Pkcs12ImportPolicy::Strict).unwrap();
}

#[test]
fn an_empty_password_is_refused_naming_the_bundle() {
    let err = Pkcs12Output::new("/tmp/x.p12", String::new()).unwrap_err();
    assert!(matches!(err, Error::EmptyPkcs12Password { .. }), "{err:?}");
    assert!(err.to_string().contains("/tmp/x.p12"), "{err}");
    assert!(
        !format!(
            "{:?}",
            Pkcs12Output::new("/tmp/x.p12", PASSWORD.to_owned()).unwrap()
        )
        .contains(PASSWORD),
        "the password must not reach a log"
    );
}

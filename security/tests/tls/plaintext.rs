//! `yarn.tls.enabled=false`: plaintext transport, anonymous callers.

use yarn_security::TlsConfig;

use crate::support::{ANONYMOUS, TestServer, call_admin, conf_for, must_make_pki};

#[tokio::test]
async fn plaintext_server_serves_anonymous_callers() {
    let mut conf = conf_for(&yarn_security::TlsFiles {
        ca_cert: "/nonexistent/ca.pem".into(),
        cert: "/nonexistent/cert.pem".into(),
        key: "/nonexistent/key.pem".into(),
    });
    conf.set("yarn.tls.enabled", "false");
    let tls = TlsConfig::from_conf(&conf).unwrap();
    assert!(!tls.is_enabled(), "paths are not even read when TLS is off");
    assert!(tls.client_config().is_none());

    let server = TestServer::start(&tls).await;
    let reply = call_admin(&server, None).await.unwrap();
    assert_eq!(reply.rm_id, ANONYMOUS);
}

#[tokio::test]
async fn tls_client_cannot_talk_to_a_plaintext_server() {
    let pki = must_make_pki();
    let server = TestServer::start(&TlsConfig::disabled()).await;

    let alice = pki.tls_config(yarn_security::Role::User, "alice");
    assert!(call_admin(&server, alice.client_config()).await.is_err());
    assert!(server.is_serving());
}

//! A listener that admits clients without a certificate, as a web endpoint's does when
//! `hadoop.http.authentication.simple.anonymous.allowed` is true: such clients complete the
//! handshake without identity, while a certificate that is presented is verified as strictly as
//! anywhere else.

use rustls::AlertDescription;
use tonic::Code;
use yarn_security::{CertificateRefusal, Role, tls_incoming};

use crate::support::{
    CallError, TestServer, assert_certificate_refused, call_admin, must_make_pki, must_serve_alice,
};

#[tokio::test]
async fn a_client_without_certificate_connects_and_has_no_identity() {
    let pki = must_make_pki();
    let server =
        TestServer::start_admitting_anonymous(&pki.tls_config(Role::ResourceManager, "rm1")).await;

    // The handshake completes; the role policy of an RPC endpoint then refuses the caller it
    // cannot name, which is why RPC endpoints never admit anonymous clients in the first place.
    let err = call_admin(&server, Some(pki.client_presenting(None)))
        .await
        .unwrap_err();
    let CallError::Rpc(status) = err else {
        panic!("expected the handler to refuse an anonymous caller, got {err:?}");
    };
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");

    must_serve_alice(&pki, &server).await;
}

#[tokio::test]
async fn a_certificate_from_another_ca_is_still_refused_at_the_handshake() {
    let pki = must_make_pki();
    let server =
        TestServer::start_admitting_anonymous(&pki.tls_config(Role::ResourceManager, "rm1")).await;

    let mallory = pki.client_presenting(Some((&pki.other_ca, Role::User, "mallory")));
    assert_certificate_refused(
        call_admin(&server, Some(mallory)).await,
        CertificateRefusal::RefusedByPeer {
            alert: AlertDescription::DecryptError,
        },
    );
    let old = pki.client_presenting(Some((&pki.ca, Role::User, "old")));
    assert_certificate_refused(
        call_admin(&server, Some(old)).await,
        CertificateRefusal::RefusedByPeer {
            alert: AlertDescription::CertificateExpired,
        },
    );

    must_serve_alice(&pki, &server).await;
}

#[tokio::test]
async fn a_listener_not_told_to_admit_anonymous_clients_drops_them_after_the_handshake() {
    let pki = must_make_pki();
    let tls = pki.tls_config(Role::ResourceManager, "rm1");
    // The configuration lets the handshake complete; the stream's own check still drops the
    // connection before any handler sees it.
    let config = tls.anonymous_server_config().unwrap();
    let server = TestServer::serve(&tls, |listener| tls_incoming(listener, config)).await;

    match call_admin(&server, Some(pki.client_presenting(None))).await {
        Ok(reply) => panic!("served an anonymous client as {:?}", reply.rm_id),
        Err(CallError::Rpc(status)) => assert_ne!(
            status.code(),
            Code::Unauthenticated,
            "the handler saw the anonymous client: {status:?}"
        ),
        Err(CallError::Connect(_)) => {}
    }

    must_serve_alice(&pki, &server).await;
}

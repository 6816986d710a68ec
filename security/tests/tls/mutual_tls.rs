//! Who gets in over mutual TLS, and that refusals never stop the server.

use std::time::Duration;

use rustls::AlertDescription;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tonic::Code;
use yarn_security::{CertificateRefusal, ConnectionLimits, Role};

use crate::support::{
    CallError, TestServer, assert_certificate_refused, call_admin, must_make_pki, must_serve_alice,
};

#[tokio::test]
async fn user_certificate_reaches_the_handler_with_its_role_and_name() {
    let pki = must_make_pki();
    let server = TestServer::start(&pki.tls_config(Role::ResourceManager, "rm1")).await;

    let alice = pki.tls_config(Role::User, "alice");
    let reply = call_admin(&server, alice.client_config()).await.unwrap();

    assert_eq!(reply.rm_id, "alice");
    assert_eq!(reply.not_ready_reason, "user");
}

#[tokio::test]
async fn client_without_certificate_is_refused_and_the_server_keeps_serving() {
    let pki = must_make_pki();
    let server = TestServer::start(&pki.tls_config(Role::ResourceManager, "rm1")).await;

    assert_certificate_refused(
        call_admin(&server, Some(pki.client_presenting(None))).await,
        CertificateRefusal::RefusedByPeer {
            alert: AlertDescription::CertificateRequired,
        },
    );

    must_serve_alice(&pki, &server).await;
}

#[tokio::test]
async fn certificate_from_another_ca_is_refused_and_the_server_keeps_serving() {
    let pki = must_make_pki();
    let server = TestServer::start(&pki.tls_config(Role::ResourceManager, "rm1")).await;

    let mallory = pki.client_presenting(Some((&pki.other_ca, Role::User, "mallory")));
    // The other CA bears the cluster CA's name, so the server finds it as the issuer and then
    // the signature does not verify.
    assert_certificate_refused(
        call_admin(&server, Some(mallory)).await,
        CertificateRefusal::RefusedByPeer {
            alert: AlertDescription::DecryptError,
        },
    );

    must_serve_alice(&pki, &server).await;
}

#[tokio::test]
async fn expired_certificate_is_refused_and_the_server_keeps_serving() {
    let pki = must_make_pki();
    let server = TestServer::start(&pki.tls_config(Role::ResourceManager, "rm1")).await;

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
async fn client_refuses_a_server_from_another_ca() {
    let pki = must_make_pki();
    let server = TestServer::start(&pki.tls_config(Role::ResourceManager, "rm1")).await;

    // Mallory trusts only her own CA, so rm1's certificate does not verify on her side.
    let mallory = pki.other_ca.tls(Role::User, "mallory");
    assert_certificate_refused(
        call_admin(&server, mallory.client_config()).await,
        CertificateRefusal::PeerSignedByAnotherCa,
    );

    must_serve_alice(&pki, &server).await;
}

#[tokio::test]
async fn nodemanager_certificate_may_not_call_the_admin_protocol() {
    let pki = must_make_pki();
    let server = TestServer::start(&pki.tls_config(Role::ResourceManager, "rm1")).await;

    let h1 = pki.tls_config(Role::NodeManager, "h1");
    let err = call_admin(&server, h1.client_config()).await.unwrap_err();

    let CallError::Rpc(status) = err else {
        panic!("expected a refusal from the handler, got {err:?}");
    };
    assert_eq!(status.code(), Code::PermissionDenied);
    assert_eq!(
        status.message(),
        "certificate nodemanager/h1 may not call the admin protocol (allowed: user)"
    );
    must_serve_alice(&pki, &server).await;
}

#[tokio::test]
async fn a_stalled_handshake_does_not_block_other_clients() {
    let pki = must_make_pki();
    // A deadline far longer than the client's connect timeout: if handshakes ran one after
    // another, the good call below would time out behind the silent client.
    let server =
        TestServer::start_with(&pki.tls_config(Role::ResourceManager, "rm1"), |incoming| {
            incoming.with_limits(ConnectionLimits {
                handshake_timeout: Duration::from_secs(3600),
                ..ConnectionLimits::default()
            })
        })
        .await;
    let silent = TcpStream::connect(server.addr).await.unwrap();
    let mut garbage = TcpStream::connect(server.addr).await.unwrap();
    garbage.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();

    must_serve_alice(&pki, &server).await;

    // Both stalled clients stayed connected throughout the good call.
    drop((silent, garbage));
}

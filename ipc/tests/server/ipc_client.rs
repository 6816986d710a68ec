//! The crate's `IpcClient` against its `IpcServer` over 127.0.0.1: SIMPLE and TOKEN sessions,
//! refusals mapped to the server's exception classes, and a connection left unusable.

use std::time::Duration;

use bytes::Bytes;
use yarn_ipc::yarn_protocol::APPLICATION_CLIENT_PROTOCOL;
use yarn_ipc::{AuthPolicy, ClientAuth, ClientError, IpcClient, IpcServerConfig};

use crate::sessions::RunningServer;
use crate::token::{IDENTIFIER, PASSWORD, USER, token_server_config};

async fn simple_server() -> RunningServer {
    RunningServer::start(IpcServerConfig::new(AuthPolicy::simple_only())).await
}

async fn connect(server: &RunningServer, auth: &ClientAuth) -> Result<IpcClient, ClientError> {
    IpcClient::connect(server.addr(), APPLICATION_CLIENT_PROTOCOL, auth).await
}

fn token(password: &[u8]) -> ClientAuth {
    ClientAuth::Token {
        identifier: Bytes::from_static(IDENTIFIER),
        password: Bytes::copy_from_slice(password),
    }
}

fn assert_remote(err: &ClientError, fatal_expected: bool, class: &str, message: &str) {
    let ClientError::Remote {
        fatal,
        class_name,
        message: text,
    } = err
    else {
        panic!("expected a remote refusal, got {err:?}");
    };
    assert_eq!(
        (*fatal, class_name.as_str()),
        (fatal_expected, class),
        "{err}"
    );
    assert!(text.contains(message), "{text:?} lacks {message:?}");
}

#[tokio::test]
async fn a_simple_client_calls_as_the_user_it_names() {
    let server = simple_server().await;
    let alice = ClientAuth::Simple {
        user: "alice".into(),
    };
    let mut client = connect(&server, &alice).await.expect("connected");
    assert_eq!(client.protocol(), APPLICATION_CLIENT_PROTOCOL);
    assert_eq!(client.call("whoami", b"").await.unwrap(), &b"alice"[..]);
    assert_eq!(
        client.call("echo", b"\x0a\x02hi").await.unwrap(),
        &b"\x0a\x02hi"[..]
    );
    let other = connect(&server, &alice).await.unwrap();
    assert_ne!(
        client.client_id(),
        other.client_id(),
        "a random id per connection"
    );
}

#[tokio::test]
async fn a_token_client_authenticates_and_calls_as_the_tokens_user() {
    let server = RunningServer::start(token_server_config()).await;
    let mut client = connect(&server, &token(PASSWORD))
        .await
        .expect("the token is accepted and the server proves it knows it");
    assert_eq!(client.call("whoami", b"").await.unwrap(), USER.as_bytes());
    assert_eq!(
        client.call("tokenIdentifier", b"").await.unwrap(),
        IDENTIFIER
    );
}

#[tokio::test]
async fn a_wrong_password_is_refused_with_the_servers_class() {
    let server = RunningServer::start(token_server_config()).await;
    let err = connect(&server, &token(b"forged")).await.err().unwrap();
    assert_remote(
        &err,
        true,
        "javax.security.sasl.SaslException",
        "DIGEST-MD5: the response digest does not match the token",
    );
}

#[tokio::test]
async fn a_token_only_server_refuses_a_simple_client() {
    let server = RunningServer::start(token_server_config()).await;
    let bob = ClientAuth::Simple { user: "bob".into() };
    // The refusal comes as the answer to the first call: SIMPLE has no exchange to refuse.
    let refused = match connect(&server, &bob).await {
        Ok(mut client) => client.call("whoami", b"").await.unwrap_err(),
        Err(err) => err,
    };
    assert_eq!(
        refused.remote_class(),
        Some("org.apache.hadoop.security.AccessControlException"),
        "{refused}"
    );
}

#[tokio::test]
async fn an_error_answer_names_the_class_and_the_connection_carries_on() {
    let server = simple_server().await;
    let auth = ClientAuth::Simple {
        user: "alice".into(),
    };
    let mut client = connect(&server, &auth).await.unwrap();
    let err = client.call("standby", b"").await.unwrap_err();
    assert_remote(
        &err,
        false,
        "org.apache.hadoop.ipc.StandbyException",
        "rm1 is in standby state",
    );
    let err = client.call("getFrobs", b"").await.unwrap_err();
    assert_remote(
        &err,
        false,
        "org.apache.hadoop.ipc.RpcNoSuchMethodException",
        "Unknown method getFrobs",
    );
    assert_eq!(client.call("whoami", b"").await.unwrap(), &b"alice"[..]);
}

#[tokio::test]
async fn a_call_dropped_before_its_answer_breaks_the_connection() {
    let server = simple_server().await;
    let auth = ClientAuth::Simple {
        user: "alice".into(),
    };
    let mut client = connect(&server, &auth).await.unwrap();
    let dropped = tokio::time::timeout(Duration::from_millis(50), client.call("slow", b"")).await;
    assert!(dropped.is_err(), "the slow call waits for its permit");
    server.release().add_permits(1);
    // Its late answer must never be taken for the next call's.
    let err = client.call("whoami", b"").await.unwrap_err();
    assert!(matches!(err, ClientError::Broken), "{err:?}");
}

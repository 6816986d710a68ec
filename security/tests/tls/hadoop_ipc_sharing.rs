//! A listener shared with Hadoop IPC: connections that open with `hrpc` are handed over with
//! none of their bytes taken, and TLS and plaintext gRPC on the same port are served as before.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::timeout;
use yarn_security::{Role, TlsConfig};

use crate::support::{ANONYMOUS, TestServer, call_admin, must_make_pki, must_serve_alice};

/// A guard against hanging, far above the time anything here takes.
const STUCK: Duration = Duration::from_secs(20);

/// Hadoop's connection preamble: magic, version 9, service class 0, SIMPLE.
const PREAMBLE: &[u8] = b"hrpc\x09\x00\x00";

/// Reads from a handed-over stream until it holds `expected.len()` bytes.
async fn must_read_exactly(stream: &mut TcpStream, expected: &[u8]) {
    let mut read = vec![0; expected.len()];
    timeout(STUCK, stream.read_exact(&mut read))
        .await
        .expect("the handed-over stream carried the client's bytes")
        .unwrap();
    assert_eq!(read, expected);
}

#[tokio::test]
async fn hadoop_ipc_is_handed_over_whole_and_tls_is_still_served() {
    let pki = must_make_pki();
    let tls = pki.tls_config(Role::ResourceManager, "rm1");
    let (handoff, mut handed_over) = mpsc::channel(4);
    let server =
        TestServer::start_with(&tls, |incoming| incoming.sharing_with_hadoop_ipc(handoff)).await;

    let mut client = TcpStream::connect(server.addr).await.unwrap();
    client.write_all(PREAMBLE).await.unwrap();
    let (mut stream, peer) = timeout(STUCK, handed_over.recv())
        .await
        .expect("the Hadoop IPC connection was handed over")
        .unwrap();
    assert_eq!(peer, client.local_addr().unwrap());
    must_read_exactly(&mut stream, PREAMBLE).await;
    // The stream is the client's: what the new owner writes reaches it.
    stream.write_all(b"answer").await.unwrap();
    let mut answer = [0; 6];
    client.read_exact(&mut answer).await.unwrap();
    assert_eq!(&answer, b"answer");

    must_serve_alice(&pki, &server).await;
}

#[tokio::test]
async fn a_preamble_split_across_writes_is_still_recognised() {
    let (handoff, mut handed_over) = mpsc::channel(4);
    let server = TestServer::start_with(&TlsConfig::disabled(), |incoming| {
        incoming.sharing_with_hadoop_ipc(handoff)
    })
    .await;

    let mut client = TcpStream::connect(server.addr).await.unwrap();
    client.set_nodelay(true).unwrap();
    client.write_all(b"hr").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.write_all(&PREAMBLE[2..]).await.unwrap();
    let (mut stream, _) = timeout(STUCK, handed_over.recv())
        .await
        .expect("the Hadoop IPC connection was handed over")
        .unwrap();
    must_read_exactly(&mut stream, PREAMBLE).await;

    // Plaintext gRPC on the same port is served as before.
    let reply = call_admin(&server, None).await.unwrap();
    assert_eq!(reply.rm_id, ANONYMOUS);
}

#[tokio::test]
async fn a_hadoop_ipc_connection_without_room_is_dropped_and_others_are_served() {
    let pki = must_make_pki();
    let tls = pki.tls_config(Role::ResourceManager, "rm1");
    let (handoff, handed_over) = mpsc::channel(1);
    // The Hadoop IPC server is gone: its channel is closed.
    drop(handed_over);
    let server =
        TestServer::start_with(&tls, |incoming| incoming.sharing_with_hadoop_ipc(handoff)).await;

    let mut client = TcpStream::connect(server.addr).await.unwrap();
    client.write_all(PREAMBLE).await.unwrap();
    let mut byte = [0; 1];
    let read = timeout(STUCK, client.read(&mut byte))
        .await
        .expect("the connection was closed");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");

    must_serve_alice(&pki, &server).await;
}

//! The client's SASL exchange for TOKEN, as Hadoop's `SaslRpcClient` runs it.

use bytes::Bytes;
use prost::Message;
use tokio::io::{AsyncRead, AsyncWrite};

use super::digest_response::DigestResponse;
use super::frame_stream::FrameStream;
use crate::pb::RpcSaslProto;
use crate::pb::rpc_sasl_proto::{SaslAuth, SaslState};
use crate::{AuthMethod, ClientError, RequestFrame, SASL_CALL_ID};

/// Authenticates with the token (`identifier`, `password`) after the SASL preamble went out:
/// NEGOTIATE; pick TOKEN/DIGEST-MD5 from the server's offer; INITIATE with the response to
/// the challenge the offer carries (or, from a server that sent none, to the CHALLENGE that
/// follows an empty INITIATE); then SUCCESS, whose `rspauth` must prove the server knows the
/// password too.
///
/// # Errors
///
/// [`ClientError::Remote`] (FATAL) when the server refuses the token, such as
/// `javax.security.sasl.SaslException` for a wrong password, `InvalidToken` or
/// `StandbyException`; [`ClientError::Sasl`] when TOKEN is not offered or the server does not
/// prove itself; [`ClientError::OutOfTurn`] for an answer in the wrong state; I/O errors.
pub(crate) async fn authenticate_with_token<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut FrameStream<S>,
    identifier: &[u8],
    password: &[u8],
) -> Result<(), ClientError> {
    send(stream, SaslState::Negotiate, Vec::new(), None).await?;
    let offer = receive(stream).await?;
    expect_state(&offer, SaslState::Negotiate)?;
    let token = AuthMethod::Token;
    let auth = offer
        .auths
        .iter()
        .find(|auth| auth.method == token.name() && auth.mechanism == token.mechanism())
        .ok_or_else(|| {
            let offered: Vec<String> = offer
                .auths
                .iter()
                .map(|auth| format!("{}/{}", auth.method, auth.mechanism))
                .collect();
            ClientError::Sasl(format!(
                "the server offers {offered:?}, not TOKEN/DIGEST-MD5"
            ))
        })?;
    let digest_uri = format!("{}/{}", auth.protocol(), auth.server_id());
    let respond = |challenge: &[u8]| {
        DigestResponse::to_challenge(challenge, identifier, password, &digest_uri)
    };
    // Hadoop's client echoes the offer it picked, without the challenge.
    let chosen = SaslAuth {
        challenge: None,
        ..auth.clone()
    };
    let mut response = match auth.challenge.as_deref() {
        Some(challenge) => {
            let response = respond(challenge)?;
            send(
                stream,
                SaslState::Initiate,
                vec![chosen],
                Some(response.token()),
            )
            .await?;
            response
        }
        None => {
            send(stream, SaslState::Initiate, vec![chosen], None).await?;
            let challenge = receive(stream).await?;
            expect_state(&challenge, SaslState::Challenge)?;
            let response = respond(challenge.token())?;
            send(
                stream,
                SaslState::Response,
                Vec::new(),
                Some(response.token()),
            )
            .await?;
            response
        }
    };
    let success = receive(stream).await?;
    expect_state(&success, SaslState::Success)?;
    response.verify_success(success.token.as_deref())?;
    // Nothing of the secret outlives the exchange in this value.
    response.password.clear();
    Ok(())
}

async fn send<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut FrameStream<S>,
    state: SaslState,
    auths: Vec<SaslAuth>,
    token: Option<Vec<u8>>,
) -> Result<(), ClientError> {
    let message = RpcSaslProto {
        state: state as i32,
        auths,
        token: token.map(Bytes::from),
        ..Default::default()
    };
    stream
        .send(&RequestFrame::sasl(&message), "authenticating")
        .await
}

/// The server's next SASL message, or its FATAL refusal as [`ClientError::Remote`].
async fn receive<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut FrameStream<S>,
) -> Result<RpcSaslProto, ClientError> {
    let (header, answer) = stream.answer("authenticating").await?;
    ClientError::check_status(&header)?;
    if header.call_id as i32 != SASL_CALL_ID {
        return Err(ClientError::OutOfTurn(format!(
            "call id {} during the SASL exchange",
            header.call_id as i32
        )));
    }
    let answer = answer.ok_or_else(|| {
        ClientError::OutOfTurn("a SASL SUCCESS answer without a SASL message".into())
    })?;
    RpcSaslProto::decode(answer).map_err(|source| {
        ClientError::Codec(crate::CodecError::Undecodable {
            message: "RpcSaslProto",
            source,
        })
    })
}

fn expect_state(message: &RpcSaslProto, expected: SaslState) -> Result<(), ClientError> {
    if message.state == expected as i32 {
        return Ok(());
    }
    let found = SaslState::try_from(message.state).map_or_else(
        |_| message.state.to_string(),
        |s| s.as_str_name().to_owned(),
    );
    Err(ClientError::OutOfTurn(format!(
        "SASL state {found} where {} was due",
        expected.as_str_name()
    )))
}

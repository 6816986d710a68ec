//! TOKEN over SASL DIGEST-MD5: the exchange a `TokenSasl` runs, against the crate's client
//! response (computed as Hadoop's client computes it, and checked against RFC 2831's example in
//! the crate), and the offer over a socket; whole TOKEN sessions are in `ipc_client`.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use proptest::prelude::*;
use yarn_ipc::pb::RpcSaslProto;
use yarn_ipc::pb::rpc_sasl_proto::SaslState;
use yarn_ipc::{
    AuthMethod, AuthPolicy, DigestResponse, ExceptionClass, IpcServerConfig, RequestFrame,
    SaslExchange, SaslMechanism, SaslRefusal, SaslStep, SaslUser, TokenSasl, TokenSecret,
    TokenSecrets,
};

use crate::sessions::RunningServer;

pub(crate) const IDENTIFIER: &[u8] = b"\x0a\x1bappattempt_1700000000000_0001_000001\x10\x07";
pub(crate) const PASSWORD: &[u8] = b"\x9f\x00\x11 a MAC of the identifier";
pub(crate) const USER: &str = "appattempt_1700000000000_0001_000001";

/// One AMRMToken, a token the standby cannot judge, and refusals for anything else.
struct TestSecrets;

impl TokenSecrets for TestSecrets {
    fn lookup(&self, identifier: &[u8]) -> Result<TokenSecret, SaslRefusal> {
        match identifier {
            IDENTIFIER => Ok(TokenSecret {
                password: Bytes::from_static(PASSWORD),
                user: USER.into(),
            }),
            b"on-the-active" => Err(SaslRefusal {
                class: ExceptionClass::StandbyException,
                message: "rm2 is in standby state".into(),
            }),
            _ => Err(SaslRefusal {
                class: ExceptionClass::InvalidToken,
                message: "no master key for this token".into(),
            }),
        }
    }
}

fn mechanism() -> TokenSasl<TestSecrets> {
    TokenSasl::new(Arc::new(TestSecrets))
}

/// An exchange that sent its challenge, and the response Hadoop's client would give to it.
fn challenged() -> (Box<dyn SaslExchange>, DigestResponse) {
    let mut exchange = mechanism().start();
    let challenge = exchange
        .initial_challenge()
        .expect("a challenge")
        .expect("server-first");
    let response =
        DigestResponse::to_challenge(&challenge, IDENTIFIER, PASSWORD, "/default").unwrap();
    (exchange, response)
}

/// The refusal of the response Hadoop's client would give, changed by `change`.
fn refused(change: impl FnOnce(&mut DigestResponse)) -> SaslRefusal {
    let (mut exchange, mut response) = challenged();
    change(&mut response);
    exchange
        .evaluate(&response.token())
        .expect_err("the exchange refuses")
}

fn assert_refusal(refusal: &SaslRefusal, class: ExceptionClass, message: &str) {
    assert_eq!(refusal.class, class, "{refusal:?}");
    assert!(
        refusal.message.contains(message),
        "{:?} lacks {message:?}",
        refusal.message
    );
}

// --- the mechanism and its challenge ------------------------------------------------------------

#[test]
fn the_mechanism_is_offered_as_hadoops_server_offers_token() {
    let mechanism = mechanism();
    assert_eq!(mechanism.method(), AuthMethod::Token);
    assert_eq!(mechanism.method().mechanism(), "DIGEST-MD5");
    assert_eq!(mechanism.protocol(), "");
    assert_eq!(mechanism.server_id(), "default");
}

#[test]
fn the_challenge_is_javas_with_a_fresh_nonce_per_connection() {
    let challenge = |mut exchange: Box<dyn SaslExchange>| {
        let bytes = exchange.initial_challenge().unwrap().unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    };
    let first = challenge(mechanism().start());
    let second = challenge(mechanism().start());
    for text in [&first, &second] {
        let nonce = text
            .strip_prefix("realm=\"default\",nonce=\"")
            .and_then(|rest| rest.strip_suffix("\",qop=\"auth\",charset=utf-8,algorithm=md5-sess"))
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(nonce.len(), 32, "base64 of 24 random bytes: {nonce}");
    }
    assert_ne!(first, second);
}

// --- a whole exchange ----------------------------------------------------------------------------

#[test]
fn hadoops_response_authenticates_the_tokens_user() {
    let (mut exchange, response) = challenged();
    let step = exchange.evaluate(&response.token()).expect("accepted");
    assert_eq!(
        step,
        SaslStep::Complete {
            token: Some(Bytes::from(response.success_token())),
            user: SaslUser {
                name: USER.into(),
                token_identifier: Some(Bytes::from_static(IDENTIFIER)),
            },
        }
    );
    let again = exchange.evaluate(&response.token()).unwrap_err();
    assert_refusal(
        &again,
        ExceptionClass::SaslException,
        "the authentication is already over",
    );
}

#[test]
fn an_absent_qop_means_auth() {
    let (mut exchange, response) = challenged();
    let token = String::from_utf8(response.token()).unwrap();
    let token = token.replace(",qop=auth", "");
    assert!(matches!(
        exchange.evaluate(token.as_bytes()),
        Ok(SaslStep::Complete { .. })
    ));
}

#[test]
fn an_authzid_naming_the_token_or_its_user_is_accepted_and_anyone_else_refused() {
    for (authzid, accepted) in [
        (BASE64.encode(IDENTIFIER), true),
        (USER.to_owned(), true),
        ("yarn".to_owned(), false),
    ] {
        let (mut exchange, mut response) = challenged();
        response.authzid = Some(authzid.clone());
        let verdict = exchange.evaluate(&response.token());
        if accepted {
            assert!(
                matches!(verdict, Ok(SaslStep::Complete { .. })),
                "{authzid}"
            );
        } else {
            assert_refusal(
                &verdict.unwrap_err(),
                ExceptionClass::SaslException,
                &format!("{USER} is not authorized to act as yarn"),
            );
        }
    }
}

#[test]
fn a_client_that_initiates_without_negotiating_gets_the_challenge_for_an_empty_token() {
    let mut exchange = mechanism().start();
    let Ok(SaslStep::Challenge(challenge)) = exchange.evaluate(b"") else {
        panic!("expected the challenge");
    };
    let response =
        DigestResponse::to_challenge(&challenge, IDENTIFIER, PASSWORD, "/default").unwrap();
    assert!(matches!(
        exchange.evaluate(&response.token()),
        Ok(SaslStep::Complete { .. })
    ));
}

#[test]
fn an_initial_response_is_refused() {
    let mut exchange = mechanism().start();
    let (_, response) = challenged();
    let refusal = exchange.evaluate(&response.token()).unwrap_err();
    assert_refusal(
        &refusal,
        ExceptionClass::SaslException,
        "must not send an initial response",
    );
}

// --- responses refused ---------------------------------------------------------------------------

#[test]
fn a_wrong_password_is_refused_and_the_exchange_is_over() {
    let (mut exchange, mut response) = challenged();
    response.password = "d3Jvbmc=".into();
    let refusal = exchange.evaluate(&response.token()).unwrap_err();
    assert_refusal(
        &refusal,
        ExceptionClass::SaslException,
        "DIGEST-MD5: the response digest does not match the token",
    );
    // No second guess against the same nonce.
    response.password = BASE64.encode(PASSWORD);
    let again = exchange.evaluate(&response.token()).unwrap_err();
    assert_refusal(&again, ExceptionClass::SaslException, "already over");
}

#[test]
fn another_exchanges_nonce_is_refused() {
    assert_refusal(
        &refused(|response| response.nonce = "stale".into()),
        ExceptionClass::SaslException,
        "the nonce is not the one this server sent",
    );
}

#[test]
fn a_second_nonce_count_is_a_replay() {
    assert_refusal(
        &refused(|response| response.nc = "00000002".into()),
        ExceptionClass::SaslException,
        "nc=00000002 is a replay",
    );
}

#[test]
fn another_digest_uri_is_refused() {
    assert_refusal(
        &refused(|response| response.digest_uri = "hdfs/default".into()),
        ExceptionClass::SaslException,
        "digest-uri=\"hdfs/default\" is not this server's \"/default\"",
    );
}

#[test]
fn integrity_and_privacy_are_refused() {
    for qop in ["auth-int", "auth-conf"] {
        assert_refusal(
            &refused(|response| response.qop = qop.into()),
            ExceptionClass::SaslException,
            &format!("qop={qop} is not offered"),
        );
    }
}

#[test]
fn another_realm_is_refused() {
    assert_refusal(
        &refused(|response| response.realm = "EXAMPLE.COM".into()),
        ExceptionClass::SaslException,
        "realm=\"EXAMPLE.COM\" is not the realm \"default\" offered",
    );
}

#[test]
fn an_unknown_token_is_refused_with_the_secrets_exception() {
    assert_refusal(
        &refused(|response| response.username = "bm8gc3VjaCB0b2tlbg==".into()),
        ExceptionClass::InvalidToken,
        "no master key for this token",
    );
}

#[test]
fn a_token_the_standby_cannot_judge_sends_the_client_elsewhere() {
    assert_refusal(
        &refused(|response| response.username = "b24tdGhlLWFjdGl2ZQ==".into()),
        ExceptionClass::StandbyException,
        "rm2 is in standby state",
    );
}

#[test]
fn a_username_that_is_not_base64_is_an_invalid_token() {
    assert_refusal(
        &refused(|response| response.username = "not base64!".into()),
        ExceptionClass::InvalidToken,
        "the username is not base64 of a token identifier",
    );
}

#[test]
fn malformed_responses_are_refused_naming_what_is_wrong() {
    let (_, response) = challenged();
    let token = String::from_utf8(response.token()).unwrap();
    let cases = [
        (
            "charset=utf-8,username=\"abc".to_owned(),
            "the response is malformed: the quoted value of directive username at byte 23 is not terminated",
        ),
        (
            token.replace(",cnonce=", ",x-cnonce="),
            "directive cnonce is missing",
        ),
        (
            token.replace(",response=", ",x-response="),
            "directive response is missing",
        ),
        (
            token.replace("username=", "x-username="),
            "directive username is missing",
        ),
        (token.replace(",nc=00000001", ""), "directive nc is missing"),
        (
            format!("{token},nc=00000001"),
            "directive nc appears more than once",
        ),
        (
            format!("{token},maxbuf=1024"),
            "directive maxbuf appears more than once",
        ),
        (token.replace("realm=\"default\",", ""), "realm is missing"),
        (
            token.replace("charset=utf-8", "charset=iso-8859-1"),
            "charset=iso-8859-1",
        ),
        (
            token.replace(&format!("cnonce=\"{}\"", response.cnonce), "cnonce=\"\""),
            "cnonce is empty",
        ),
        ("x".repeat(4097), "the response is 4097 bytes"),
        (String::new(), "directive username is missing"),
    ];
    for (token, message) in cases {
        let (mut exchange, ours) = challenged();
        let token = token.replace(&response.nonce, &ours.nonce);
        let refusal = exchange.evaluate(token.as_bytes()).unwrap_err();
        assert_refusal(&refusal, ExceptionClass::SaslException, message);
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_are_refused_without_a_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
    ) {
        let (mut exchange, _) = challenged();
        let refusal = exchange.evaluate(&bytes).unwrap_err();
        prop_assert!(refusal.message.starts_with("DIGEST-MD5: "), "{}", refusal.message);
    }

    #[test]
    fn a_mutated_response_never_panics_nor_passes_with_another_digest(
        changes in yarn_test_support::byte_mutation::mutations(),
    ) {
        let (mut exchange, response) = challenged();
        let mut token = response.token();
        for change in &changes {
            change.apply(&mut token);
        }
        if let Ok(SaslStep::Complete { user, .. }) = exchange.evaluate(&token) {
            prop_assert_eq!(user.name, USER);
            let text = String::from_utf8_lossy(&token);
            prop_assert!(text.contains(&response.response()), "{}", text);
        }
    }
}

// --- over a socket -------------------------------------------------------------------------------

pub(crate) fn token_server_config() -> IpcServerConfig {
    let mechanism = Arc::new(mechanism()) as Arc<dyn SaslMechanism>;
    let mut config = IpcServerConfig::new(AuthPolicy::new(vec![mechanism], false));
    config.max_data_length = 64 * 1024;
    config
}

#[tokio::test]
async fn the_offer_is_hadoops_and_carries_the_first_challenge() {
    let server = RunningServer::start(token_server_config()).await;
    let mut client = server.client().await;
    client.send(b"hrpc\x09\x00\xdf").await;
    client
        .send(&RequestFrame::sasl(&RpcSaslProto {
            state: SaslState::Negotiate as i32,
            ..Default::default()
        }))
        .await;
    let offer = client.sasl_answer().await;
    assert_eq!(offer.state(), SaslState::Negotiate);
    let [auth] = offer.auths.as_slice() else {
        panic!("one offer: {offer:?}");
    };
    assert_eq!(
        (auth.method.as_str(), auth.mechanism.as_str()),
        ("TOKEN", "DIGEST-MD5")
    );
    assert_eq!(auth.protocol.as_deref(), Some(""));
    assert_eq!(auth.server_id.as_deref(), Some("default"));
    let challenge = auth.challenge.as_deref().expect("the first challenge");
    DigestResponse::to_challenge(challenge, IDENTIFIER, PASSWORD, "/default")
        .expect("a challenge Hadoop's client answers");
}

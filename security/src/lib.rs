//! yarn-ha security: the cluster PKI, mutual TLS with peer identity, and YARN's tokens.
//!
//! Depends only on `yarn-conf` and `yarn-proto` in the workspace; every daemon uses it.
//!
//! - PKI (`pki`): a cluster CA and leaf certificates whose subject carries a role
//!   (resourcemanager, nodemanager, user) and a name.
//! - Transport (`tls`, `TlsConfig`, `Incoming`, `connect`, `Authorizer`): rustls server and
//!   client configurations built from configuration, with client certificates required (web
//!   endpoints alone may admit clients without one, for Hadoop's anonymous reads), and the
//!   peer's identity handed to every gRPC handler, under `ConnectionLimits` (handshakes at
//!   once, connections per identity, idle time); `CertificateRefusal` tells, from a failed
//!   connection's error, a refused certificate (final) from an unreachable peer:
//!
//! ```text
//! TcpListener ─▶ Incoming (TLS handshake, PeerIdentity from the client certificate)
//!             ─▶ tonic Server ─▶ handler: Authorizer::authorize(&request, &[Role::User], "admin")
//! client: connect(address, TlsConfig::client_config(), &ChannelOptions) ─▶ TlsConnector ─▶ Channel
//! ```
//! - Tokens ([`Token`], [`TokenSecretManager`], [`MasterKey`], [`MasterKeyRoller`]): AMRMToken,
//!   container token and NM token identifiers signed with HMAC-SHA256 under a master key id and
//!   verified in constant time, and master-key rolling as pure functions of `now`;
//!   [`ContainerTokenFields`] and the secret managers' `sign_container_token` and
//!   `sign_nm_token` build container and NM tokens as the RM issues them.
//! - Hadoop credentials files ([`hadoop_credentials`]): the `HDTS` file a container finds under
//!   `HADOOP_TOKEN_FILE_LOCATION` and a Hadoop client sends as a launch context's `tokens`,
//!   written in Hadoop's default `Writable` form and read in both of its forms.
// Module declarations are added by the modules' authors below this line.

mod error;

pub use error::Error;

// PKI, peer identity and mutual TLS for tonic.
mod authz;
mod certificate_refusal;
mod connection_limits;
mod connector;
mod dialer;
mod hadoop_ipc_settings;
mod hadoop_ipc_share;
mod identity;
mod identity_connections;
mod idle_timer;
mod incoming;
mod log_throttle;
mod peer_connection;
pub mod pki;
mod refusal;
mod role;
mod status_message_bound;
pub mod tls;
mod tls_config;
mod wall_clock;

pub use authz::{Authorizer, Caller, authorize, peer_identity, peer_info};
pub use certificate_refusal::CertificateRefusal;
pub use connection_limits::ConnectionLimits;
pub use connector::{ChannelOptions, TlsConnector, connect, connect_lazy, dial};
pub use dialer::Dialer;
pub use hadoop_ipc_settings::HadoopIpcSettings;
pub use hadoop_ipc_share::HadoopIpcShare;
pub use identity::PeerIdentity;
pub use incoming::{HadoopIpcHandoff, Incoming, plaintext_incoming, tls_incoming};
pub use peer_connection::{PeerConnection, PeerInfo};
pub use role::Role;
pub use status_message_bound::{
    BoundStatusMessages, BoundStatusService, MAX_STATUS_MESSAGE_BYTES, bound_status_message,
};
pub use tls::{Credentials, install_crypto_provider};
pub use tls_config::{TlsConfig, TlsFiles};
pub use wall_clock::{SimulatedClock, now_ms};

// The process's limits.
mod open_files_limit;

pub use open_files_limit::{OpenFilesLimit, raise_open_files_limit};

// Users' groups for the group entries of ACLs.
mod group_mapping;
mod groups;

pub use group_mapping::GroupMapping;
pub use groups::Groups;

// Tokens and master keys: pure (no clock, no I/O; randomness only in `MasterKey::generate`).
mod epoch_millis;
mod issued_tokens;
mod key_rolling_schedule;
mod master_key;
mod master_key_roller;
mod token;
mod token_identifier;
mod token_kind;
mod token_secret_manager;

pub use issued_tokens::ContainerTokenFields;
pub use key_rolling_schedule::KeyRollingSchedule;
pub use master_key::MasterKey;
pub use master_key_roller::{KeyAction, MasterKeyRoller, NextMasterKey};
pub use token::Token;
pub use token_identifier::TokenIdentifier;
pub use token_kind::TokenKind;
pub use token_secret_manager::TokenSecretManager;

// Hadoop credentials files (pure: bytes in, bytes out). Its `Credentials` is not re-exported
// here, where `Credentials` names a TLS identity.
pub mod hadoop_credentials;

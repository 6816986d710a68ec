//! The NodeManager's token checks: pure decisions on the container tokens and NM tokens an
//! application master presents, after YARN's `NMContainerTokenSecretManager`,
//! `NMTokenSecretManagerInNM` and the checks in `ContainerManagerImpl`.
//!
//! Nothing here reads a clock, touches the disk or the network: the container manager passes
//! the time, this node's id, the RM epoch it follows and a view of its replay records, and gets
//! back either the verified identifier or a refusal that names the container and says why.
//!
//! ```text
//!  RM (registration / heartbeat) ── MasterKeyProto ──> NmTokenKeys::install ──> NM state store
//!                                                          │
//!  AM start request ── container token ──> check_container_start ──> VerifiedContainer
//!                  └── NM token ─────────> check_nm_token ─────────> VerifiedNmToken
//!                                                          │
//!                                 ContainerStartRefusal / NmTokenRefusal (per container)
//! ```

mod claimed;
mod container_start_refusal;
mod container_token_check;
mod epoch_millis;
mod nm_key_kind;
mod nm_token_check;
mod nm_token_keys;
mod nm_token_refusal;
#[cfg(test)]
mod test_tokens;

pub use container_start_refusal::ContainerStartRefusal;
pub use container_token_check::{VerifiedContainer, check_container_start};
pub use nm_key_kind::NmKeyKind;
pub use nm_token_check::{VerifiedNmToken, check_nm_token};
pub use nm_token_keys::NmTokenKeys;
pub use nm_token_refusal::NmTokenRefusal;

/// The `now_ms` both checks hand to `TokenSecretManager::verify`, which then checks only kind,
/// identifier, key and signature: no expiry is before the start of time, so verify's own expiry
/// check never fires. The container check tests expiry itself, later, in YARN's order (after the
/// node and replay checks), so that a token failing several checks gets YARN's refusal; NM
/// tokens do not expire.
const SIGNATURE_ONLY_NOW_MS: i64 = i64::MIN;

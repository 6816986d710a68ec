//! Conversions between the domain types and their protobuf messages, one file per message
//! family.
//!
//! Domain to protobuf is infallible (`From`). Protobuf to domain is `TryFrom` and fails with
//! [`ProtoError::MissingField`](crate::ProtoError::MissingField) when a nested message the domain
//! type needs is absent, or [`ProtoError::InvalidField`](crate::ProtoError::InvalidField) when a
//! value is outside what the domain type allows (so every converted id prints in a form that
//! parses back).

mod application_attempt_id;
mod application_id;
mod container_id;
mod node_id;

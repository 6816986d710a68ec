//! `NodeId` <-> `NodeIdProto`.

use crate::ProtoError;
use crate::ids::NodeId;
use crate::pb;

impl From<NodeId> for pb::NodeIdProto {
    fn from(id: NodeId) -> Self {
        Self {
            host: id.host,
            port: i32::from(id.port),
        }
    }
}

impl From<&NodeId> for pb::NodeIdProto {
    fn from(id: &NodeId) -> Self {
        Self {
            host: id.host.clone(),
            port: i32::from(id.port),
        }
    }
}

impl TryFrom<pb::NodeIdProto> for NodeId {
    type Error = ProtoError;

    /// Fails with [`ProtoError::MissingField`] for an empty host, and with
    /// [`ProtoError::InvalidField`] for a host containing `:` or a port outside `0..=65535`.
    fn try_from(proto: pb::NodeIdProto) -> Result<Self, Self::Error> {
        if proto.host.is_empty() {
            return Err(ProtoError::MissingField {
                message: "NodeIdProto",
                field: "host",
            });
        }
        if proto.host.contains(':') {
            return Err(ProtoError::InvalidField {
                record: "NodeIdProto",
                field: "host",
                value: proto.host,
                expected: "a host name or IPv4 address without ':'",
            });
        }
        let port = u16::try_from(proto.port).map_err(|_| ProtoError::InvalidField {
            record: "NodeIdProto",
            field: "port",
            value: proto.port.to_string(),
            expected: "a port in 0..=65535",
        })?;
        Ok(Self::new(proto.host, port))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_protobuf() {
        let id = NodeId::new("nm1.example.com", 8041);
        let proto = pb::NodeIdProto::from(&id);
        assert_eq!(proto.port, 8041);
        assert_eq!(NodeId::try_from(proto), Ok(id));
    }

    #[test]
    fn refuses_empty_host_colon_host_and_bad_ports() {
        let node = |host: &str, port: i32| pb::NodeIdProto {
            host: host.to_owned(),
            port,
        };
        assert_eq!(
            NodeId::try_from(node("", 8041)),
            Err(ProtoError::MissingField {
                message: "NodeIdProto",
                field: "host",
            })
        );
        for (proto, field) in [
            (node("::1", 8041), "host"),
            (node("nm1", -1), "port"),
            (node("nm1", 65536), "port"),
        ] {
            match NodeId::try_from(proto) {
                Err(ProtoError::InvalidField { field: got, .. }) => assert_eq!(got, field),
                other => panic!("expected {field} to be refused, got {other:?}"),
            }
        }
    }
}

//! Telling protocols apart by their first bytes, for ports shared between TLS and Hadoop IPC.

use crate::MAGIC;

/// The protocol a connection speaks, judged from the first bytes it sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// A TLS record: the first byte is 0x16, a handshake record (a ClientHello).
    Tls,
    /// Hadoop IPC: the connection opens with `hrpc`.
    HadoopIpc,
    /// Neither.
    Unknown,
    /// Too few bytes to tell: what arrived is a start of `hrpc` (or nothing yet). Read more.
    Incomplete,
}

impl Protocol {
    /// Judges `first_bytes`, the bytes read so far. One byte decides TLS; Hadoop IPC needs
    /// all four bytes of its magic, and fewer that match its start are [`Protocol::Incomplete`].
    pub fn sniff(first_bytes: &[u8]) -> Protocol {
        const TLS_HANDSHAKE_RECORD: u8 = 0x16;
        match first_bytes {
            [] => Protocol::Incomplete,
            [TLS_HANDSHAKE_RECORD, ..] => Protocol::Tls,
            bytes if bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] == MAGIC => {
                Protocol::HadoopIpc
            }
            bytes if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) => Protocol::Incomplete,
            _ => Protocol::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_hello_is_tls() {
        assert_eq!(
            Protocol::sniff(&[0x16, 0x03, 0x01, 0x02, 0x00]),
            Protocol::Tls
        );
        assert_eq!(Protocol::sniff(&[0x16]), Protocol::Tls);
    }

    #[test]
    fn hrpc_is_hadoop_ipc() {
        assert_eq!(Protocol::sniff(b"hrpc\x09\x00\x00"), Protocol::HadoopIpc);
        assert_eq!(Protocol::sniff(b"hrpc"), Protocol::HadoopIpc);
    }

    #[test]
    fn a_start_of_hrpc_needs_more_bytes() {
        assert_eq!(Protocol::sniff(b""), Protocol::Incomplete);
        assert_eq!(Protocol::sniff(b"h"), Protocol::Incomplete);
        assert_eq!(Protocol::sniff(b"hrp"), Protocol::Incomplete);
    }

    #[test]
    fn anything_else_is_unknown() {
        assert_eq!(Protocol::sniff(b"GET / HTTP/1.1"), Protocol::Unknown);
        assert_eq!(Protocol::sniff(b"hx"), Protocol::Unknown);
        assert_eq!(Protocol::sniff(b"hrpX"), Protocol::Unknown);
        assert_eq!(Protocol::sniff(&[0x15, 0x03]), Protocol::Unknown);
    }
}

//! `host:port` endpoint addresses as written in Hadoop's `*.address` keys.

use std::fmt;
use std::net::Ipv6Addr;
use std::str::FromStr;

/// A network endpoint `host:port` read from an address key.
///
/// Parsing is strict: the host is non-empty and made of letters, digits, `-`, `.` and `_`, or is
/// an IPv6 literal in brackets (`[::1]:8032`); the port is decimal digits in `0..=65535` (0 asks the
/// operating system for a free port, which tests use). `Display` writes the form `FromStr` reads,
/// bracketing IPv6 hosts again, so a value round-trips.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostPort {
    /// Host name or IP address, without brackets for IPv6.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl HostPort {
    /// What a valid value looks like, for error messages.
    pub const EXPECTED: &'static str = "host:port or [ipv6]:port with a port in 0..=65535";

    /// Creates an endpoint from its parts without validating the host.
    pub fn new(host: impl Into<String>, port: u16) -> HostPort {
        HostPort {
            host: host.into(),
            port,
        }
    }
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Why a string is not a valid [`HostPort`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HostPortError {
    /// The string is empty.
    #[error("the address is empty")]
    Empty,
    /// There is no `:port` part.
    #[error("there is no `:port` after the host")]
    MissingPort,
    /// The host part is empty (`:8032`).
    #[error("the host is empty")]
    EmptyHost,
    /// The host contains a character not allowed in host names.
    #[error("the host contains {character:?}, which is not allowed in a host name")]
    InvalidHostCharacter {
        /// The offending character.
        character: char,
    },
    /// An IPv6 address was written without brackets, so its colons are ambiguous with the port's.
    #[error("an IPv6 host must be written in brackets, as in [::1]:8032")]
    UnbracketedIpv6,
    /// A `[` has no matching `]`.
    #[error("the `[` of an IPv6 host has no closing `]`")]
    UnclosedBracket,
    /// The text in brackets is not an IPv6 address.
    #[error("{host:?} in brackets is not an IPv6 address")]
    InvalidIpv6 {
        /// The text between the brackets.
        host: String,
    },
    /// The port is empty or has characters other than decimal digits.
    #[error("port {port:?} is not a decimal number")]
    InvalidPort {
        /// The port text.
        port: String,
    },
    /// The port is a number above 65535.
    #[error("port {port} is greater than 65535")]
    PortOutOfRange {
        /// The port text.
        port: String,
    },
}

impl FromStr for HostPort {
    type Err = HostPortError;

    /// Parses `host:port` or `[ipv6]:port`; surrounding whitespace is an error (getters trim first).
    fn from_str(text: &str) -> Result<HostPort, HostPortError> {
        if text.is_empty() {
            return Err(HostPortError::Empty);
        }
        let (host, port) = if let Some(bracketed) = text.strip_prefix('[') {
            let (host, after) = bracketed
                .split_once(']')
                .ok_or(HostPortError::UnclosedBracket)?;
            if host.parse::<Ipv6Addr>().is_err() {
                return Err(HostPortError::InvalidIpv6 {
                    host: host.to_owned(),
                });
            }
            let port = after.strip_prefix(':').ok_or(HostPortError::MissingPort)?;
            (host, port)
        } else {
            let (host, port) = text.split_once(':').ok_or(HostPortError::MissingPort)?;
            if port.contains(':') {
                return Err(HostPortError::UnbracketedIpv6);
            }
            validate_host_name(host)?;
            (host, port)
        };
        Ok(HostPort {
            host: host.to_owned(),
            port: parse_port(port)?,
        })
    }
}

fn validate_host_name(host: &str) -> Result<(), HostPortError> {
    if host.is_empty() {
        return Err(HostPortError::EmptyHost);
    }
    match host
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '-' | '.' | '_')))
    {
        Some(character) => Err(HostPortError::InvalidHostCharacter { character }),
        None => Ok(()),
    }
}

fn parse_port(port: &str) -> Result<u16, HostPortError> {
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(HostPortError::InvalidPort {
            port: port.to_owned(),
        });
    }
    // All digits, so the only way parsing fails is a value too large for u16.
    port.parse::<u16>()
        .map_err(|_| HostPortError::PortOutOfRange {
            port: port.to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn must_parse(text: &str) -> HostPort {
        text.parse()
            .unwrap_or_else(|e| panic!("{text:?} should parse: {e}"))
    }

    #[test]
    fn parses_names_ipv4_and_bracketed_ipv6() {
        assert_eq!(
            must_parse("rm1.example.com:8032"),
            HostPort::new("rm1.example.com", 8032)
        );
        assert_eq!(must_parse("127.0.0.1:0"), HostPort::new("127.0.0.1", 0));
        assert_eq!(must_parse("[::1]:65535"), HostPort::new("::1", 65535));
        assert_eq!(must_parse("0.0.0.0:8088").port, 8088);
    }

    #[test]
    fn display_round_trips_and_brackets_ipv6() {
        for text in ["host_a:1", "10.0.0.7:8031", "[fe80::1]:8030"] {
            assert_eq!(must_parse(text).to_string(), text);
        }
        assert_eq!(HostPort::new("::1", 8032).to_string(), "[::1]:8032");
    }

    #[test]
    fn rejects_malformed_addresses_with_the_reason() {
        let cases = [
            ("", HostPortError::Empty),
            ("host", HostPortError::MissingPort),
            (":8032", HostPortError::EmptyHost),
            ("::1:8032", HostPortError::UnbracketedIpv6),
            ("[::1:8032", HostPortError::UnclosedBracket),
            ("[::1]8032", HostPortError::MissingPort),
            (
                "[nothost]:1",
                HostPortError::InvalidIpv6 {
                    host: "nothost".into(),
                },
            ),
            (
                "host:",
                HostPortError::InvalidPort {
                    port: String::new(),
                },
            ),
            (
                "host:+80",
                HostPortError::InvalidPort { port: "+80".into() },
            ),
            ("host:-1", HostPortError::InvalidPort { port: "-1".into() }),
            (
                "host:65536",
                HostPortError::PortOutOfRange {
                    port: "65536".into(),
                },
            ),
            (
                "host:99999999999999999999",
                HostPortError::PortOutOfRange {
                    port: "99999999999999999999".into(),
                },
            ),
            (
                " host:80",
                HostPortError::InvalidHostCharacter { character: ' ' },
            ),
            (
                "ho/st:80",
                HostPortError::InvalidHostCharacter { character: '/' },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<HostPort>(), Err(expected), "input {text:?}");
        }
    }
}

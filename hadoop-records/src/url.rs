//! A local resource's location: Hadoop's `URLProto` parts against yarn-ha's URL string.
//!
//! The string form is `scheme://[userInfo@]host[:port]file` when there is a host, and
//! `scheme:file` when there is none (Hadoop's `file:/home/x/a.jar` is scheme `file`, no host,
//! file `/home/x/a.jar`); a part that is absent is left out.

use crate::RecordError;
use crate::hadoop::yarn::UrlProto;

const FIELD: &str = "LocalResourceProto.resource";

/// The string for Hadoop's URL parts.
///
/// # Errors
///
/// [`RecordError::Unrepresentable`] when the parts would not read back as the same parts: a
/// scheme or host with a delimiter in it, a port or user without a host, a file that does not
/// start with `/` after a host, or a scheme-less file that would read as a scheme.
pub(crate) fn to_string(url: &UrlProto) -> Result<String, RecordError> {
    let unrepresentable = |problem: String| RecordError::Unrepresentable {
        field: FIELD,
        problem,
    };
    let scheme = url.scheme.as_deref().filter(|s| !s.is_empty());
    let file = url.file();
    let port = url.port.filter(|port| *port >= 0);
    if let Some(scheme) = scheme
        && !is_scheme(scheme)
    {
        return Err(unrepresentable(format!(
            "scheme {scheme:?} is not a URL scheme"
        )));
    }
    let mut text = scheme.map(|s| format!("{s}:")).unwrap_or_default();
    match url.host.as_deref() {
        Some(host) => {
            let bracketed = host.starts_with('[') && host.ends_with(']');
            if host.contains(['/', '@', '?', '#']) || (host.contains(':') && !bracketed) {
                return Err(unrepresentable(format!("host {host:?} holds a delimiter")));
            }
            if !file.is_empty() && !file.starts_with('/') {
                return Err(unrepresentable(format!(
                    "file {file:?} after a host must start with '/'"
                )));
            }
            text.push_str("//");
            if let Some(user) = url.user_info.as_deref() {
                if user.contains(['/', '@']) {
                    return Err(unrepresentable(format!(
                        "userInfo {user:?} holds a delimiter"
                    )));
                }
                text.push_str(user);
                text.push('@');
            }
            text.push_str(host);
            if let Some(port) = port {
                text.push_str(&format!(":{port}"));
            }
        }
        None => {
            if url.user_info.is_some() || port.is_some() {
                return Err(unrepresentable("a user or port without a host".into()));
            }
            if file.starts_with("//") || (scheme.is_none() && scheme_of(file).is_some()) {
                return Err(unrepresentable(format!(
                    "file {file:?} would read back as a scheme or host"
                )));
            }
        }
    }
    text.push_str(file);
    Ok(text)
}

/// Hadoop's URL parts for a string, as a Hadoop client's `URL.fromURI` splits it: the port is
/// -1 when there is none, as Java sends it (an absent port reads as 0 in Java).
pub(crate) fn from_string(text: &str) -> UrlProto {
    let (scheme, rest) = match scheme_of(text) {
        Some(scheme) => (Some(scheme.to_owned()), &text[scheme.len() + 1..]),
        None => (None, text),
    };
    let Some(after) = rest.strip_prefix("//") else {
        return UrlProto {
            scheme,
            port: Some(-1),
            file: Some(rest.to_owned()),
            ..Default::default()
        };
    };
    let (authority, file) = after.split_at(after.find('/').unwrap_or(after.len()));
    let (user_info, host_port) = match authority.rfind('@') {
        Some(at) => (Some(authority[..at].to_owned()), &authority[at + 1..]),
        None => (None, authority),
    };
    let (host, port) = split_port(host_port);
    UrlProto {
        scheme,
        host: Some(host.to_owned()),
        port: Some(port.unwrap_or(-1)),
        file: Some(file.to_owned()),
        user_info,
    }
}

/// `host:port` into its parts; a bracketed IPv6 host keeps its colons, and a port that is not
/// a number stays part of the host.
fn split_port(host_port: &str) -> (&str, Option<i32>) {
    let search_from = host_port.rfind(']').unwrap_or(0);
    match host_port[search_from..].rfind(':') {
        Some(colon) => {
            let colon = search_from + colon;
            match host_port[colon + 1..].parse::<u16>() {
                Ok(port) => (&host_port[..colon], Some(i32::from(port))),
                Err(_) => (host_port, None),
            }
        }
        None => (host_port, None),
    }
}

/// The scheme a string starts with (the part before the first `:`), if that part is one.
fn scheme_of(text: &str) -> Option<&str> {
    let colon = text.find(':')?;
    let scheme = &text[..colon];
    is_scheme(scheme).then_some(scheme)
}

/// RFC 3986: a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(scheme: Option<&str>, host: Option<&str>, port: i32, file: &str) -> UrlProto {
        UrlProto {
            scheme: scheme.map(str::to_owned),
            host: host.map(str::to_owned),
            port: Some(port),
            file: Some(file.to_owned()),
            user_info: None,
        }
    }

    #[test]
    fn hadoops_file_urls_have_no_host() {
        let url = parts(Some("file"), None, -1, "/home/x/a.jar");
        assert_eq!(to_string(&url).unwrap(), "file:/home/x/a.jar");
        assert_eq!(from_string("file:/home/x/a.jar"), url);
    }

    #[test]
    fn hosts_ports_and_users_round_trip() {
        for text in [
            "hdfs://nn:8020/user/a/app.jar",
            "hdfs://nn/user/a/app.jar",
            "s3a://alice@bucket/key?x=1",
            "hdfs://[::1]:8020/a",
            "hdfs://nn",
            "/plain/path",
        ] {
            let url = from_string(text);
            assert_eq!(to_string(&url).unwrap(), text, "{url:?}");
        }
        let url = from_string("hdfs://alice@nn:8020/a");
        assert_eq!(url.user_info.as_deref(), Some("alice"));
        assert_eq!(url.host.as_deref(), Some("nn"));
        assert_eq!(url.port, Some(8020));
    }

    #[test]
    fn parts_a_string_cannot_carry_are_errors_naming_the_field() {
        for url in [
            parts(Some("hdfs"), Some("nn"), 8020, "relative"),
            parts(Some("hdfs"), None, 8020, "/a"),
            parts(Some("a b"), None, -1, "/a"),
            parts(None, None, -1, "c:/windows"),
            parts(Some("hdfs"), Some("nn:1"), -1, "/a"),
        ] {
            let error = to_string(&url).unwrap_err().to_string();
            assert!(
                error.starts_with("LocalResourceProto.resource: "),
                "{error}"
            );
        }
    }
}

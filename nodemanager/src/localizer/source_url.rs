//! The local path a `file:` URL names: the only sources this NodeManager localizes.

use std::path::PathBuf;

use super::LocalizationError;

/// The absolute local path of a `file:` URL, in the three forms Hadoop clients write:
/// `file:/a/b`, `file:///a/b` and `file://localhost/a/b`. Percent escapes are decoded, as a
/// URL's path is.
///
/// # Errors
///
/// [`LocalizationError::UnsupportedScheme`] for any other scheme (`hdfs:`, `http:`, ...), and
/// [`LocalizationError::InvalidUrl`] for a URL without a scheme, one naming another host (that
/// host's disk is out of reach), a relative or empty path, or a broken percent escape.
pub(crate) fn file_url_path(link: &str, url: &str) -> Result<PathBuf, LocalizationError> {
    let invalid = |reason| LocalizationError::InvalidUrl {
        link: link.to_owned(),
        url: url.to_owned(),
        reason,
    };
    let (scheme, rest) = url
        .split_once(':')
        .filter(|(scheme, _)| is_scheme(scheme))
        .ok_or_else(|| invalid("it has no scheme (expected file:/absolute/path)"))?;
    if !scheme.eq_ignore_ascii_case("file") {
        return Err(LocalizationError::UnsupportedScheme {
            link: link.to_owned(),
            url: url.to_owned(),
            scheme: scheme.to_owned(),
        });
    }
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let (authority, path) = authority_and_path
                .find('/')
                .map_or((authority_and_path, ""), |slash| {
                    authority_and_path.split_at(slash)
                });
            if !authority.is_empty() && !authority.eq_ignore_ascii_case("localhost") {
                return Err(invalid(
                    "it names another host; only this node's files (file:/path, file:///path, \
                     file://localhost/path) can be localized",
                ));
            }
            path
        }
        None => rest,
    };
    if !path.starts_with('/') {
        return Err(invalid("its path is not absolute"));
    }
    let decoded = percent_decode(path).ok_or_else(|| invalid("it has a broken percent escape"))?;
    if decoded.contains('\0') {
        return Err(invalid("its path holds NUL"));
    }
    Ok(PathBuf::from(decoded))
}

/// RFC 3986: a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme(scheme: &str) -> bool {
    let mut chars = scheme.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `path` with every `%XX` replaced by its byte, or `None` for a `%` not followed by two hex
/// digits or bytes that are not UTF-8.
fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        if byte == b'%' {
            let hex = bytes.get(index + 1..index + 3)?;
            // from_str_radix alone would take a sign: "%+1".
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            decoded.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            index += 3;
        } else {
            decoded.push(byte);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(url: &str) -> Result<PathBuf, LocalizationError> {
        file_url_path("r", url)
    }

    #[test]
    fn the_three_file_forms_name_the_same_path() {
        for url in [
            "file:/home/u/.sparkStaging/a/__app__.jar",
            "file:///home/u/.sparkStaging/a/__app__.jar",
            "file://localhost/home/u/.sparkStaging/a/__app__.jar",
            "FILE://LocalHost/home/u/.sparkStaging/a/__app__.jar",
        ] {
            assert_eq!(
                path(url).unwrap(),
                PathBuf::from("/home/u/.sparkStaging/a/__app__.jar"),
                "{url}"
            );
        }
        assert_eq!(path("file:/a%20b/c%25").unwrap(), PathBuf::from("/a b/c%"));
    }

    #[test]
    fn other_schemes_are_refused_by_name() {
        for (url, scheme) in [
            ("hdfs://nn:8020/user/u/app.jar", "hdfs"),
            ("http://example.com/app.jar", "http"),
            ("s3a://bucket/app.jar", "s3a"),
        ] {
            assert_eq!(
                path(url),
                Err(LocalizationError::UnsupportedScheme {
                    link: "r".to_owned(),
                    url: url.to_owned(),
                    scheme: scheme.to_owned(),
                })
            );
        }
    }

    #[test]
    fn other_hosts_relative_paths_and_broken_urls_are_refused() {
        for url in [
            "/no/scheme",
            "file://otherhost/a",
            "file:relative/a",
            "file://localhost",
            "file:/a%2",
            "file:/a%zz",
            "file:/a%+1",
            "file:/a%00",
            "",
        ] {
            assert!(
                matches!(path(url), Err(LocalizationError::InvalidUrl { .. })),
                "{url}: {:?}",
                path(url)
            );
        }
    }
}

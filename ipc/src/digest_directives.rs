//! The directives of a DIGEST-MD5 message (RFC 2831 section 7): `name=value` pairs separated by
//! commas, each value a token or a quoted string.

use std::fmt;

/// A DIGEST-MD5 message read into its directives, in the order sent.
///
/// The grammar is RFC 2831's (after HTTP/1.1's): linear white space may surround names, `=`
/// and commas; empty list elements (`a=1,,b=2`) are allowed; a value is a token or a quoted
/// string whose `\` escapes the next character. Names are compared without regard to case and
/// stored in lower case; values are unescaped and must be UTF-8. Nothing is decided here about
/// which directives must appear: [`Directives::exactly_once`] and [`Directives::at_most_once`]
/// refuse a missing or repeated one, and directives nobody asks for are ignored, as RFC 2831
/// tells a server to ignore directives it does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Directives {
    entries: Vec<(String, String)>,
}

/// Why a message is not a list of directives, or lacks or repeats one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DirectiveError(String);

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Directives {
    /// Reads `text`. Never panics, whatever the bytes.
    ///
    /// # Errors
    ///
    /// A [`DirectiveError`] naming the byte offset and what was expected there.
    pub fn parse(text: &[u8]) -> Result<Self, DirectiveError> {
        let mut reader = Reader { text, at: 0 };
        let mut entries = Vec::new();
        loop {
            reader.skip_space();
            match reader.peek() {
                None => break,
                Some(b',') => {
                    reader.at += 1;
                    continue;
                }
                Some(_) => {}
            }
            let name = reader
                .token()
                .ok_or_else(|| reader.error("a directive name"))?
                .to_ascii_lowercase();
            reader.skip_space();
            if reader.peek() != Some(b'=') {
                return Err(reader.error(&format!("`=` after directive {name}")));
            }
            reader.at += 1;
            reader.skip_space();
            let value = match reader.peek() {
                Some(b'"') => reader.quoted(&name)?,
                _ => reader
                    .token()
                    .ok_or_else(|| reader.error(&format!("a value for directive {name}")))?
                    .to_owned(),
            };
            reader.skip_space();
            if !matches!(reader.peek(), None | Some(b',')) {
                return Err(reader.error(&format!("a comma after directive {name}")));
            }
            entries.push((name, value));
        }
        Ok(Directives { entries })
    }

    /// The value of `name` (lower case), which must appear exactly once.
    ///
    /// # Errors
    ///
    /// The directive is missing or repeated.
    pub fn exactly_once(&self, name: &str) -> Result<&str, DirectiveError> {
        self.at_most_once(name)?
            .ok_or_else(|| DirectiveError(format!("directive {name} is missing")))
    }

    /// The value of `name` (lower case), which may appear at most once.
    ///
    /// # Errors
    ///
    /// The directive is repeated.
    pub fn at_most_once(&self, name: &str) -> Result<Option<&str>, DirectiveError> {
        let mut values = self
            .entries
            .iter()
            .filter(|(entry, _)| entry == name)
            .map(|(_, value)| value.as_str());
        let first = values.next();
        if values.next().is_some() {
            return Err(DirectiveError(format!(
                "directive {name} appears more than once"
            )));
        }
        Ok(first)
    }
}

/// A cursor over the message.
struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Linear white space: spaces, tabs and line breaks (folded lines).
    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    /// One or more token characters, or `None` if there is none here.
    fn token(&mut self) -> Option<&'a str> {
        let start = self.at;
        while self.peek().is_some_and(is_token_char) {
            self.at += 1;
        }
        // Token characters are ASCII, so the slice is always UTF-8.
        std::str::from_utf8(&self.text[start..self.at])
            .ok()
            .filter(|token| !token.is_empty())
    }

    /// A quoted string starting at the opening quote, unescaped.
    fn quoted(&mut self, name: &str) -> Result<String, DirectiveError> {
        let start = self.at;
        self.at += 1;
        let mut value = Vec::new();
        loop {
            let Some(byte) = self.peek() else {
                return Err(DirectiveError(format!(
                    "the quoted value of directive {name} at byte {start} is not terminated"
                )));
            };
            self.at += 1;
            match byte {
                b'"' => break,
                b'\\' => match self.peek() {
                    Some(escaped) if escaped.is_ascii() => {
                        value.push(escaped);
                        self.at += 1;
                    }
                    _ => {
                        return Err(self.error(&format!(
                            "an ASCII character after `\\` in directive {name}"
                        )));
                    }
                },
                b' ' | b'\t' | b'\r' | b'\n' => value.push(byte),
                control if control.is_ascii_control() => {
                    self.at -= 1;
                    return Err(self.error(&format!("text, not a control, in directive {name}")));
                }
                _ => value.push(byte),
            }
        }
        String::from_utf8(value)
            .map_err(|_| DirectiveError(format!("the value of directive {name} is not UTF-8")))
    }

    fn error(&self, expected: &str) -> DirectiveError {
        let found = match self.peek() {
            Some(byte) => format!("{:?}", char::from(byte)),
            None => "the end".to_owned(),
        };
        DirectiveError(format!(
            "expected {expected} at byte {}, found {found}",
            self.at
        ))
    }
}

/// HTTP/1.1's token characters: visible ASCII except the separators.
fn is_token_char(byte: u8) -> bool {
    byte.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&byte)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(text: &str) -> Directives {
        Directives::parse(text.as_bytes()).unwrap()
    }

    fn refused(text: &[u8]) -> String {
        Directives::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn rfc_2831s_example_response_reads() {
        let directives = parse(
            "charset=utf-8,username=\"chris\",realm=\"elwood.innosoft.com\",\
             nonce=\"OA6MG9tEQGm2hh\",nc=00000001,cnonce=\"OA6MHXh6VqTrRk\",\
             digest-uri=\"imap/elwood.innosoft.com\",\
             response=d388dad90d4bbd760a152321f2143af7,qop=auth",
        );
        let value = |name| directives.exactly_once(name).unwrap();
        assert_eq!(value("charset"), "utf-8");
        assert_eq!(value("username"), "chris");
        assert_eq!(value("realm"), "elwood.innosoft.com");
        assert_eq!(value("nonce"), "OA6MG9tEQGm2hh");
        assert_eq!(value("nc"), "00000001");
        assert_eq!(value("cnonce"), "OA6MHXh6VqTrRk");
        assert_eq!(value("digest-uri"), "imap/elwood.innosoft.com");
        assert_eq!(value("response"), "d388dad90d4bbd760a152321f2143af7");
        assert_eq!(value("qop"), "auth");
        assert_eq!(directives.at_most_once("authzid").unwrap(), None);
    }

    #[test]
    fn quoted_values_are_unescaped_and_keep_commas_and_spaces() {
        let directives = parse(r#"username="a\"b\\c, d",realm="""#);
        assert_eq!(directives.exactly_once("username").unwrap(), r#"a"b\c, d"#);
        assert_eq!(directives.exactly_once("realm").unwrap(), "");
    }

    #[test]
    fn white_space_empty_elements_and_name_case_are_allowed() {
        let directives = parse(" ,, Username = \"x\" ,\r\n\tQOP\t=\tauth ,, ");
        assert_eq!(directives.exactly_once("username").unwrap(), "x");
        assert_eq!(directives.exactly_once("qop").unwrap(), "auth");
    }

    #[test]
    fn values_may_be_utf_8() {
        let directives = parse("username=\"zoë\"");
        assert_eq!(directives.exactly_once("username").unwrap(), "zoë");
    }

    #[test]
    fn unknown_directives_are_kept_out_of_the_way_even_when_repeated() {
        let directives = parse("x-ext=1,x-ext=\"2\",nonce=\"n\"");
        assert_eq!(directives.exactly_once("nonce").unwrap(), "n");
    }

    #[test]
    fn a_repeated_or_missing_directive_is_refused_when_asked_for() {
        let directives = parse("nonce=\"a\",NONCE=\"b\"");
        assert_eq!(
            directives.exactly_once("nonce").unwrap_err().to_string(),
            "directive nonce appears more than once"
        );
        assert_eq!(
            directives.at_most_once("nonce").unwrap_err().to_string(),
            "directive nonce appears more than once"
        );
        assert_eq!(
            directives.exactly_once("cnonce").unwrap_err().to_string(),
            "directive cnonce is missing"
        );
    }

    #[test]
    fn malformed_messages_are_refused_with_where_and_what() {
        assert_eq!(
            refused(b"username=\"chris"),
            "the quoted value of directive username at byte 9 is not terminated"
        );
        assert_eq!(
            refused(b"username=\"chris\\"),
            "expected an ASCII character after `\\` in directive username at byte 16, found the end"
        );
        assert_eq!(
            refused(b"username"),
            "expected `=` after directive username at byte 8, found the end"
        );
        assert_eq!(
            refused(b"username="),
            "expected a value for directive username at byte 9, found the end"
        );
        assert_eq!(
            refused(b"digest-uri=/default"),
            "expected a value for directive digest-uri at byte 11, found '/'"
        );
        assert_eq!(
            refused(b"nc=00000001 qop=auth"),
            "expected a comma after directive nc at byte 12, found 'q'"
        );
        assert_eq!(
            refused(b"=x"),
            "expected a directive name at byte 0, found '='"
        );
        assert_eq!(
            refused(b"realm=\"a\x01\""),
            "expected text, not a control, in directive realm at byte 8, found '\\u{1}'"
        );
        assert_eq!(
            refused(b"realm=\"\xff\""),
            "the value of directive realm is not UTF-8"
        );
    }

    #[test]
    fn an_empty_message_has_no_directives() {
        assert_eq!(
            parse("").exactly_once("username").unwrap_err().to_string(),
            "directive username is missing"
        );
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            if let Ok(directives) = Directives::parse(&bytes) {
                let _ = directives.exactly_once("username");
            }
        }

        #[test]
        fn quoted_values_round_trip(value in "[ -~]{0,40}") {
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            let directives = Directives::parse(format!("v=\"{escaped}\"").as_bytes()).unwrap();
            prop_assert_eq!(directives.exactly_once("v").unwrap(), value.as_str());
        }
    }
}

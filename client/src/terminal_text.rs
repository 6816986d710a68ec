//! [`escape_for_terminal`]: how text that users, ApplicationMasters or servers chose reaches an
//! operator's terminal.
//!
//! Application names, types, tags, queues, diagnostics, health reports and server messages are
//! anyone's bytes. Printed raw, an escape sequence in them can retitle the terminal, move the
//! cursor, hide what precedes it or forge a line of output; a bidi override can make the text
//! read differently from what it is. So the CLI escapes them visibly, as GNU `ls -b` does with
//! file names.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` as it may be written to a terminal: printable characters, non-ASCII ones included
/// (`café`, `作业`), unchanged; each control character and bidi control replaced by a visible
/// escape, so that the text cannot act on the terminal nor end its line or table cell:
///
/// - `\a \b \t \n \v \f \r \e` for BEL, backspace, tab, line feed, vertical tab, form feed,
///   carriage return and ESC;
/// - `\xHH` for the other C0 controls and DEL (`\x00`, `\x7f`);
/// - `\u{H..}` for the C1 controls U+0080 to U+009F (`\u{9b}`, a one-character CSI) and the
///   bidi embeddings, overrides and isolates U+202A to U+202E and U+2066 to U+2069
///   (`\u{202e}`);
/// - `\\` for a backslash, so that every backslash in the result starts an escape and the
///   original text can be read back without ambiguity.
///
/// Borrows `text` when nothing needs escaping. The result is meant to be printed: escaping it
/// again would double its backslashes.
pub fn escape_for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\x0b' => out.push_str("\\v"),
            '\x0c' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\x1b' => out.push_str("\\e"),
            // Writing to a String cannot fail.
            '\0'..='\x1f' | '\x7f' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` must not reach a terminal as itself: a backslash (the escape character), a
/// control character (C0, DEL and C1 are exactly Unicode's `Cc`, [`char::is_control`]), or a
/// bidi control that reorders the text after it.
fn needs_escape(c: char) -> bool {
    c == '\\' || c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_passes_through_borrowed_in_any_script() {
        for text in [
            "word count",
            "café",
            "作业 ジョブ",
            "root.a-b_c:8041/x?y=1",
            "",
        ] {
            assert!(
                matches!(escape_for_terminal(text), Cow::Borrowed(t) if t == text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn c0_controls_with_a_c_name_get_it() {
        assert_eq!(
            escape_for_terminal("\x07\x08\t\n\x0b\x0c\r\x1b"),
            "\\a\\b\\t\\n\\v\\f\\r\\e"
        );
        assert_eq!(
            escape_for_terminal("\x1b]0;pwned\x07evil"),
            "\\e]0;pwned\\aevil"
        );
    }

    #[test]
    fn other_c0_controls_and_del_print_as_two_hex_digits() {
        assert_eq!(
            escape_for_terminal("a\0b\x01\x1a\x1f\x7f"),
            "a\\x00b\\x01\\x1a\\x1f\\x7f"
        );
    }

    #[test]
    fn c1_controls_print_as_unicode_escapes() {
        assert_eq!(
            escape_for_terminal("\u{80}x\u{9b}2J\u{9f}"),
            "\\u{80}x\\u{9b}2J\\u{9f}"
        );
        // Just past the C1 range: printable.
        assert_eq!(escape_for_terminal("\u{a0}é"), "\u{a0}é");
    }

    #[test]
    fn bidi_embeddings_overrides_and_isolates_print_as_unicode_escapes() {
        let all = "\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}";
        assert_eq!(
            escape_for_terminal(all),
            "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}\
             \\u{2066}\\u{2067}\\u{2068}\\u{2069}"
        );
        assert_eq!(
            escape_for_terminal("invoice\u{202e}fdp.exe"),
            "invoice\\u{202e}fdp.exe"
        );
        // Their neighbours are not bidi controls.
        assert_eq!(escape_for_terminal("\u{2029}\u{206a}"), "\u{2029}\u{206a}");
    }

    #[test]
    fn a_backslash_is_doubled_so_that_escapes_read_back_unambiguously() {
        // The text `\e` and the character ESC must not print alike.
        assert_eq!(escape_for_terminal("\\e"), "\\\\e");
        assert_eq!(escape_for_terminal("\x1b"), "\\e");
        assert_eq!(escape_for_terminal("C:\\tmp"), "C:\\\\tmp");
    }
}

//! [`DiagnosticsLimit`]: how much of a caller's diagnostics every replica keeps.

/// `yarn.app.attempt.diagnostics.limit.kc`: diagnostics an AM, a NodeManager or a user sends
/// (an AM's finish, a container's exit, a kill) are kept to this many thousand characters
/// (times 1024), as Hadoop bounds an attempt's diagnostics. The end is kept, where a failure's
/// cause usually is, behind a note saying how much was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiagnosticsLimit {
    chars: usize,
}

impl Default for DiagnosticsLimit {
    /// Hadoop's default: 64 kilo-characters.
    fn default() -> Self {
        Self::kilo_chars(64)
    }
}

impl DiagnosticsLimit {
    /// A limit of `kilo_chars` * 1024 characters.
    pub fn kilo_chars(kilo_chars: usize) -> Self {
        Self {
            chars: kilo_chars.saturating_mul(1024),
        }
    }

    /// `text` whole when within the limit; otherwise a note and its last characters, the whole
    /// no longer than the limit plus the note.
    pub fn bound(&self, text: String) -> String {
        let count = text.chars().count();
        if count <= self.chars {
            return text;
        }
        let skipped = count - self.chars;
        let tail: String = text.chars().skip(skipped).collect();
        format!("[{skipped} earlier characters of diagnostics left out] {tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_within_the_limit_are_kept_whole() {
        let limit = DiagnosticsLimit::kilo_chars(1);
        let text = "é".repeat(1024);
        assert_eq!(limit.bound(text.clone()), text);
    }

    #[test]
    fn longer_diagnostics_keep_their_end_behind_a_note() {
        let limit = DiagnosticsLimit::kilo_chars(1);
        let text = format!("{}cause: disk full", "x".repeat(2000));
        let bounded = limit.bound(text);
        assert!(
            bounded.starts_with("[992 earlier characters of diagnostics left out] "),
            "{bounded}"
        );
        assert!(bounded.ends_with("cause: disk full"));
        let kept = bounded.split_once("] ").unwrap().1;
        assert_eq!(kept.chars().count(), 1024);
    }
}

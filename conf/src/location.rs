//! Positions inside configuration resources.

use std::fmt;

/// Where a configuration value came from: a resource name plus a 1-based line and column.
///
/// Columns count characters (not bytes) from the start of the line, so they match what an editor
/// shows for UTF-8 files. Values that did not come from a file (see [`Location::programmatic`])
/// have line and column 0, and their `Display` is the bare source name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The resource name: a file path as given to the loader, or a name such as `yarn-default.xml`.
    pub file: String,
    /// 1-based line number; 0 when the value has no position.
    pub line: u32,
    /// 1-based column (in characters); 0 when the value has no position.
    pub column: u32,
}

impl Location {
    /// The source name used for values set through [`crate::Configuration::set`].
    pub const PROGRAMMATIC: &'static str = "programmatic";

    /// Creates a location at `line`:`column` of `file`.
    pub fn new(file: impl Into<String>, line: u32, column: u32) -> Location {
        Location {
            file: file.into(),
            line,
            column,
        }
    }

    /// The location recorded for values set in code rather than read from a resource.
    pub fn programmatic() -> Location {
        Location::new(Location::PROGRAMMATIC, 0, 0)
    }

    /// Whether this location points into a file (line and column are meaningful).
    pub fn has_position(&self) -> bool {
        self.line > 0
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.has_position() {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        } else {
            f.write_str(&self.file)
        }
    }
}

/// Maps byte offsets in a resource's text to [`Location`]s.
///
/// Built once per resource so that every event and error can be positioned in `O(log lines)`.
#[derive(Debug)]
pub(crate) struct LineIndex<'a> {
    file: &'a str,
    text: &'a str,
    /// Byte offset at which each line starts; the first entry is always 0.
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes the lines of `text`, which is reported under the name `file`.
    pub(crate) fn new(file: &'a str, text: &'a str) -> LineIndex<'a> {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        LineIndex {
            file,
            text,
            line_starts,
        }
    }

    /// The location of byte `offset`; offsets past the end map to the end of the text.
    pub(crate) fn locate(&self, offset: usize) -> Location {
        let offset = offset.min(self.text.len());
        let line = self
            .line_starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1);
        let start = self.line_starts[line];
        // An offset inside a multi-byte character counts as that character.
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |prefix| prefix.chars().count());
        Location::new(
            self.file,
            saturating_u32(line + 1),
            saturating_u32(column + 1),
        )
    }

    /// The location just past the last character of the text.
    pub(crate) fn end(&self) -> Location {
        self.locate(self.text.len())
    }
}

fn saturating_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_with_and_without_position() {
        assert_eq!(Location::new("a.xml", 3, 7).to_string(), "a.xml:3:7");
        assert_eq!(Location::programmatic().to_string(), "programmatic");
    }

    #[test]
    fn locate_counts_lines_and_characters_from_one() {
        let text = "ab\nçd\n\nx";
        let index = LineIndex::new("f", text);
        assert_eq!(index.locate(0), Location::new("f", 1, 1));
        assert_eq!(index.locate(2), Location::new("f", 1, 3));
        assert_eq!(index.locate(3), Location::new("f", 2, 1));
        // 'ç' is two bytes but one column.
        assert_eq!(index.locate(5), Location::new("f", 2, 2));
        assert_eq!(index.locate(7), Location::new("f", 3, 1));
        assert_eq!(index.locate(8), Location::new("f", 4, 1));
        assert_eq!(index.end(), Location::new("f", 4, 2));
    }

    #[test]
    fn empty_text_ends_at_line_one_column_one() {
        assert_eq!(LineIndex::new("f", "").end(), Location::new("f", 1, 1));
    }
}

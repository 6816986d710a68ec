//! The listing layout Hadoop's CLI uses: one line per row, cells right-aligned to a minimum
//! width and separated by tabs, so that `cut -f` and `awk -F'\t'` split them.

use std::fmt::Write;

use crate::terminal_text::escape_for_terminal;

/// Appends one row to `out`: each cell escaped for the terminal ([`escape_for_terminal`]), so
/// that no cell can hold a tab or line break of its own nor act on the terminal, right-aligned
/// to its column's minimum width as escaped (longer cells are kept whole), tab-separated,
/// ending with a newline. Extra cells beyond `widths` are not padded. Cells are passed as
/// received: this is where they are escaped, once.
pub(crate) fn push_row(out: &mut String, widths: &[usize], cells: &[&str]) {
    for (index, cell) in cells.iter().enumerate() {
        if index > 0 {
            out.push('\t');
        }
        let width = widths.get(index).copied().unwrap_or(0);
        // Writing to a String cannot fail.
        let _ = write!(out, "{:>width$}", escape_for_terminal(cell));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_right_aligned_tab_separated_and_never_cut() {
        let mut out = String::new();
        push_row(&mut out, &[4, 3], &["ab", "toolong"]);
        assert_eq!(out, "  ab\ttoolong\n");
    }

    #[test]
    fn cells_are_escaped_and_aligned_by_their_escaped_width() {
        let mut out = String::new();
        push_row(&mut out, &[6, 4, 3], &["a\tb", "\x1b[2J", "é"]);
        // `a\tb` is four characters once escaped, `\e[2J` five: the tab and line end are the
        // row's own, and only they.
        assert_eq!(out, "  a\\tb\t\\e[2J\t  é\n");
        assert_eq!(out.matches('\t').count(), 2);
    }
}

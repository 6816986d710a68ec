//! The listing layout Hadoop's CLI uses: one line per row, cells right-aligned to a minimum
//! width and separated by tabs, so that `cut -f` and `awk -F'\t'` split them.

use std::fmt::Write;

/// Appends one row to `out`: each cell right-aligned to its column's minimum width (longer
/// cells are kept whole), tab-separated, ending with a newline. Extra cells beyond `widths`
/// are not padded.
pub(crate) fn push_row(out: &mut String, widths: &[usize], cells: &[&str]) {
    for (index, cell) in cells.iter().enumerate() {
        if index > 0 {
            out.push('\t');
        }
        let width = widths.get(index).copied().unwrap_or(0);
        // Writing to a String cannot fail.
        let _ = write!(out, "{cell:>width$}");
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
}

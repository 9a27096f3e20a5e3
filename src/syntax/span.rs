//! Byte spans in a source text and their line/column positions.

/// A half-open byte range `start..end` in a source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// Maps byte offsets of one source text to 1-based lines and columns.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { line_starts }
    }

    /// The 1-based line and column (in characters) of byte `offset` of
    /// `text` (as [`line_column`], with the line found by binary search).
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        (line + 1, column(&text.as_bytes()[start..offset]))
    }

    /// The text of 1-based line `line`, without its line terminator.
    pub fn line_text<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let start = self
            .line_starts
            .get(line - 1)
            .copied()
            .unwrap_or(text.len());
        let end = self.line_starts.get(line).copied().unwrap_or(text.len());
        text.get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`,
/// which should be valid UTF-8 up to `offset` (a byte that is not counts as
/// one character). The one place lines and columns are counted: diagnostics
/// use it through `LineIndex`.
pub fn line_column(text: &[u8], offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    (line, column(&before[line_start..]))
}

/// The 1-based column after `line_prefix`, the bytes of a line before an offset.
fn column(line_prefix: &[u8]) -> usize {
    1 + String::from_utf8_lossy(line_prefix).chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters_from_one() {
        let text = "ab\nçd\n\nx";
        for (offset, want) in [
            (0, (1, 1)),
            (2, (1, 3)),
            (3, (2, 1)),
            (5, (2, 2)),
            (7, (3, 1)),
            (8, (4, 1)),
            (9, (4, 2)),
            (99, (4, 2)),
        ] {
            assert_eq!(
                line_column(text.as_bytes(), offset),
                want,
                "offset {offset}"
            );
            assert_eq!(
                LineIndex::new(text).line_col(text, offset),
                want,
                "offset {offset}"
            );
        }
        // Invalid UTF-8 after the offset does not matter; before it, a byte
        // counts as one character.
        assert_eq!(line_column(b"a\n\xffb\xff", 4), (2, 3));
        assert_eq!(LineIndex::new(text).line_text(text, 2), "çd");
    }
}

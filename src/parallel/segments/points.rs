//! Where the time segments of a MonPoly log lie: a segment starts at a
//! time-point, at a line that starts with its `@` outside a quoted value,
//! so that no time-point is split and a reader that starts there reads
//! the rest of the log as one reader of the whole log would (see
//! `session::segments`, which monitors them).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::layout::{WARM_UP, line_ends};
use super::layout_warm;

/// Where the segments of a MonPoly log lie, each place with its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsLayout {
    /// Per segment, where it starts, and at the end the file's size:
    /// segment `s` is `bounds[s]..bounds[s + 1]`, each bound (but the
    /// first and the last) the `@` of a time-point at a line start.
    pub bounds: Vec<u64>,
    /// Per segment, the line of its start (1 for the first).
    pub lines: Vec<u64>,
    /// Per segment, the time-points before it (each `@` out of quotes and
    /// comments starts one), and at the end `u64::MAX`.
    pub points: Vec<u64>,
    /// Per segment, where its warm-up starts (its own start for the
    /// first), also a time-point's `@` at a line start.
    pub warm: Vec<u64>,
    /// Per segment, the line of its warm-up's start.
    pub warm_lines: Vec<u64>,
    /// Per segment, the time-points before its warm-up.
    pub warm_points: Vec<u64>,
}

/// Splits the MonPoly log at `path` into `jobs` segments as
/// [`layout_warm`] splits a CSV file (warm-ups of a thirtieth of the
/// file, each bound moved to the next line that starts a time-point, out
/// of quotes), with at least `first` time-points in the first segment. `None` when the log has too few such lines for that.
pub fn points_layout(path: &Path, jobs: usize, first: u64) -> io::Result<Option<PointsLayout>> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let Some(rough) = layout_warm(&mut file, size, jobs, size / WARM_UP, 1.0)? else {
        return Ok(None);
    };
    let n = rough.warm.len();
    // The places to move, in order: each warm-up's start, then its bound.
    let mut wanted: Vec<u64> = Vec::with_capacity(2 * n);
    for s in 1..n {
        wanted.push(rough.warm[s]);
        wanted.push(rough.bounds[s]);
    }
    let found = scan_points(File::open(path)?, &wanted)?;
    let mut out = PointsLayout {
        bounds: vec![0; n + 1],
        lines: vec![1; n],
        points: vec![0; n + 1],
        warm: vec![0; n],
        warm_lines: vec![1; n],
        warm_points: vec![0; n],
    };
    (out.bounds[n], out.points[n]) = (size, u64::MAX);
    for s in 1..n {
        let (Some(w), Some(b)) = (found[2 * (s - 1)], found[2 * (s - 1) + 1]) else {
            return Ok(None);
        };
        (out.warm[s], out.warm_lines[s], out.warm_points[s]) = (w.at, w.line, w.points_before);
        (out.bounds[s], out.lines[s], out.points[s]) = (b.at, b.line, b.points_before);
        if s == 1 && b.points_before < first {
            return Ok(None);
        }
    }
    let ordered = out.bounds.windows(2).all(|w| w[0] < w[1])
        && (1..n).all(|s| out.warm[s] < out.bounds[s] && out.warm[s] >= out.bounds[s - 1]);
    Ok(ordered.then_some(out))
}

/// A time-point's start found by [`scan_points`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointStart {
    /// Its offset in the file (of its `@`).
    pub at: u64,
    /// Its line.
    pub line: u64,
    /// The time-points before it.
    pub points_before: u64,
}

/// Per offset of `wanted` (ascending), the first time-point start at or
/// after it: a `@` that starts a line and lies neither in a quoted value
/// (`"..."`, where `\` takes the next byte) nor in a comment (`#` to the
/// end of the line), as the MonPoly reader reads them. `None` when there
/// is none before the end. Each comes with its line and the time-points
/// before it (every `@` out of quotes and comments starts one).
pub fn scan_points(mut file: impl Read, wanted: &[u64]) -> io::Result<Vec<Option<PointStart>>> {
    let mut out = vec![None; wanted.len()];
    let mut next = 0;
    let mut buf = vec![0u8; 1 << 20];
    // Where the chunk starts; the line and the time-points before `i`.
    let (mut pos, mut line, mut points) = (0u64, 1u64, 0u64);
    let mut state = State::Normal;
    // Whether the byte before `i` ends a line (true at the start).
    let mut after_newline = true;
    while next < wanted.len() {
        let got = file.read(&mut buf)?;
        if got == 0 {
            break;
        }
        let chunk = &buf[..got];
        let mut i = 0;
        while i < got && next < wanted.len() {
            match state {
                State::Quoted { escaped } => {
                    // To the closing quote, counting the lines in the value.
                    let rest = &chunk[i..];
                    let mut esc = escaped;
                    let mut end = None;
                    for (k, &b) in rest.iter().enumerate() {
                        if esc {
                            esc = false;
                        } else if b == b'\\' {
                            esc = true;
                        } else if b == b'"' {
                            end = Some(k);
                            break;
                        }
                    }
                    let upto = end.map_or(rest.len(), |k| k + 1);
                    line += line_ends(&rest[..upto]);
                    after_newline = false;
                    i += upto;
                    state = match end {
                        Some(_) => State::Normal,
                        None => State::Quoted { escaped: esc },
                    };
                }
                State::Comment => match memchr::memchr(b'\n', &chunk[i..]) {
                    Some(k) => {
                        i += k;
                        state = State::Normal;
                    }
                    None => i = got,
                },
                State::Normal => {
                    // A stretch without quotes or comments, to the next.
                    let j = memchr::memchr2(b'"', b'#', &chunk[i..]).map_or(got, |k| i + k);
                    let span = &chunk[i..j];
                    // The time-point starts in it that are wanted.
                    let mut from = 0;
                    while next < wanted.len() {
                        let least = wanted[next].saturating_sub(pos + i as u64);
                        let Some(k) = line_start_at(span, (least as usize).max(from), after_newline)
                        else {
                            break;
                        };
                        let start = PointStart {
                            at: pos + (i + k) as u64,
                            line: line + line_ends(&span[..k]),
                            points_before: points + ats(&span[..k]),
                        };
                        while next < wanted.len() && wanted[next] <= start.at {
                            out[next] = Some(start);
                            next += 1;
                        }
                        from = k + 1;
                    }
                    line += line_ends(span);
                    points += ats(span);
                    if let Some(&last) = span.last() {
                        after_newline = last == b'\n';
                    }
                    i = j;
                    if let Some(&b) = chunk.get(j) {
                        state = if b == b'"' {
                            State::Quoted { escaped: false }
                        } else {
                            State::Comment
                        };
                        after_newline = false;
                        i += 1;
                    }
                }
            }
        }
        pos += got as u64;
    }
    Ok(out)
}

/// The first `@` of `span` at or after `from` that starts a line (the
/// byte before it a line end; at 0, when `after_newline`).
fn line_start_at(span: &[u8], from: usize, after_newline: bool) -> Option<usize> {
    if from >= span.len() {
        return None;
    }
    if from == 0 && after_newline && span[0] == b'@' {
        return Some(0);
    }
    let at = from.saturating_sub(1);
    memchr::memmem::find_iter(&span[at..], b"\n@")
        .map(|k| at + k + 1)
        .find(|&k| k >= from)
}

/// The `@`s in `bytes`.
fn ats(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'@', bytes).count() as u64
}

/// Where [`scan_points`] is in the log's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Normal,
    Quoted { escaped: bool },
    Comment,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(log: &str, wanted: &[u64]) -> Vec<Option<(u64, u64, u64)>> {
        scan_points(log.as_bytes(), wanted)
            .unwrap()
            .into_iter()
            .map(|p| p.map(|p| (p.at, p.line, p.points_before)))
            .collect()
    }

    #[test]
    fn a_segment_starts_at_a_time_point_that_starts_a_line_out_of_quotes() {
        let log = "@1 p(a)\n@2 p(\"x\n@3 y\") # @4\n@5 q(b) @6 q(c)\n@7\n";
        // `@2` starts line 2 at 8; the quoted value holds a line that
        // starts with `@3`; `@5` starts line 4 at 28, `@7` line 5 at 44.
        assert_eq!((&log[28..30], &log[44..46]), ("@5", "@7"));
        assert_eq!(
            starts(log, &[0, 1, 9, 28, 29]),
            vec![
                Some((0, 1, 0)),
                Some((8, 2, 1)),
                Some((28, 4, 2)),
                Some((28, 4, 2)),
                Some((44, 5, 4)),
            ]
        );
        assert_eq!(starts(log, &[45]), vec![None]);
    }

    #[test]
    fn an_escaped_quote_does_not_end_a_quoted_value() {
        let log = "@1 p(\"a\\\"\n@2\")\n@3 p(b)\n";
        assert_eq!(starts(log, &[1]), vec![Some((15, 3, 1))]);
    }

    #[test]
    fn a_comment_hides_a_quote() {
        let log = "@1 p(a) # it's \"\n@2 p(b)\n";
        assert_eq!(starts(log, &[1]), vec![Some((17, 2, 1))]);
    }
}

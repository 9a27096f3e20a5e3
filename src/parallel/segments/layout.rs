//! Where a file's segments lie: bounds at line starts, warm-ups before
//! them, and the lines before each (see [`super`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// The warm-up of a segment, as a share of the file: `1 / WARM_UP` at
/// least, up to [`MAX_WARM_UP`] bytes and a segment. (What it must cover depends
/// on the trace, not on the number of segments: on the `gen_access.py` log,
/// about 150,000 events, until every logged-in user has been seen again.)
pub(super) const WARM_UP: u64 = 30;

/// The longest warm-up, in bytes (a few million events).
pub(super) const MAX_WARM_UP: u64 = 64 << 20;

/// Where the segments of a file lie.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Per segment, where it starts (a line start), and at the end the
    /// file's size: segment `s` is `bounds[s]..bounds[s + 1]`.
    pub bounds: Vec<u64>,
    /// Per segment, where its warm-up starts (its own start for the first).
    pub warm: Vec<u64>,
    /// Whether the warm-ups are compacted ([`super::compact`]): each is
    /// then the whole file before its segment.
    pub compact: bool,
    /// What the warm-up of a worker that takes over a segment's end
    /// ([`super::cut`]) costs, as a share of stepping the lines it reads
    /// (at least 1: never worth it).
    pub take_over: f64,
    /// (Tests) each segment's worker waits for the merger's decision on
    /// taking over its end before it steps.
    #[cfg(test)]
    pub held: bool,
    /// (Tests) the first segment's end is taken over by a fresh worker
    /// once a later segment's has ended ([`super::run`]'s relief).
    #[cfg(test)]
    pub relieve: bool,
}

/// What a compacted warm-up from the true state ([`super::cut`]) costs
/// against stepping the lines it reads: on the `gen_access.py` log of
/// 50,000 users, a compacted warm-up of the million lines before the
/// second segment executes 0.54 G instructions against 5.8 G for
/// stepping them (0.09), and one from the true state steps the records
/// that clear their tuples too. One that cut the second segment of that
/// log at 62% (under callgrind) executed 0.70 G instructions against 3.02
/// G for stepping the stretch: 0.23.
pub(super) const COMPACT_TAKE_OVER: f64 = 0.25;

/// Splits `file` (of `size` bytes) into `jobs` segments, each but the
/// first with a warm-up of `size / WARM_UP` bytes (at most `MAX_WARM_UP`
/// and a segment), sized so that every worker steps about as many
/// bytes; each bound is the first line start at or after its place.
/// `None` when the file has too few lines for that.
#[cfg(any(test, feature = "internals"))]
pub fn layout(file: &mut (impl Read + Seek), size: u64, jobs: usize) -> io::Result<Option<Layout>> {
    layout_warm(file, size, jobs, 0, 1.0)
}

/// [`layout`] with warm-ups of `warm` bytes at least (as
/// [`super::warm_up_events`] finds that the values of the trace need), still
/// at most `MAX_WARM_UP` and a segment, each costing `cost` times what
/// stepping as many bytes costs (from 0 to 1: a warm-up reads every event
/// but may step only some, [`super::warm_up_cost`]): the segments after the
/// first are longer by what their warm-ups save.
pub fn layout_warm(
    file: &mut (impl Read + Seek),
    size: u64,
    jobs: usize,
    warm: u64,
    cost: f64,
) -> io::Result<Option<Layout>> {
    let n = jobs.max(1);
    let jobs = n as u64;
    let warm = (size / WARM_UP).max(warm).min(MAX_WARM_UP).min(size / jobs);
    // Every worker's cost `each`: the first steps `each` bytes, the others
    // `each - cost * warm` after their warm-ups; together the whole file.
    let cost = cost.clamp(0.0, 1.0);
    let paid = (cost * warm as f64) as u64;
    let each = (size + (jobs - 1) * paid) / jobs;
    let body = each - paid;
    let mut out = Layout {
        bounds: vec![0; n + 1],
        warm: vec![0; n],
        compact: false,
        take_over: cost,
        #[cfg(test)]
        held: false,
        #[cfg(test)]
        relieve: false,
    };
    out.bounds[n] = size;
    for s in 1..n {
        let start = each + body * (s as u64 - 1);
        let (Some(w), Some(b)) = (line_start(file, start - warm)?, line_start(file, start)?) else {
            return Ok(None);
        };
        (out.warm[s], out.bounds[s]) = (w, b);
    }
    let ordered = out.bounds.windows(2).all(|w| w[0] < w[1])
        && (1..n).all(|s| out.warm[s] < out.bounds[s] && out.warm[s] >= out.bounds[s - 1]);
    Ok(ordered.then_some(out))
}

/// The layout of [`super::compact_bounds`]'s bounds (each moved to the
/// first line start at or after it), with compacted warm-ups from the
/// file's start. `None` when the file has too few lines for that.
pub fn layout_compact(file: &mut (impl Read + Seek), bounds: &[u64]) -> io::Result<Option<Layout>> {
    let n = bounds.len().saturating_sub(1);
    let mut out = Layout {
        bounds: bounds.to_vec(),
        warm: vec![0; n],
        compact: true,
        take_over: COMPACT_TAKE_OVER,
        #[cfg(test)]
        held: false,
        #[cfg(test)]
        relieve: false,
    };
    for (s, &at) in bounds.iter().enumerate().take(n).skip(1) {
        let Some(b) = line_start(file, at)? else {
            return Ok(None);
        };
        out.bounds[s] = b;
    }
    let ordered = out.bounds.windows(2).all(|w| w[0] < w[1]);
    Ok((n > 0 && ordered).then_some(out))
}

/// The first line start at or after `at` (`None`: none before the end).
fn line_start(file: &mut (impl Read + Seek), at: u64) -> io::Result<Option<u64>> {
    if at == 0 {
        return Ok(Some(0));
    }
    // A line starts at `at` when the byte before it ends a line.
    let mut pos = file.seek(SeekFrom::Start(at - 1))?;
    let mut buf = [0u8; 4096];
    loop {
        let got = file.read(&mut buf)?;
        if got == 0 {
            return Ok(None);
        }
        if let Some(i) = buf[..got].iter().position(|&b| b == b'\n') {
            return Ok(Some(pos + i as u64 + 1));
        }
        pos += got as u64;
    }
}

/// The lines of a file: line ends before each segment's start, and in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lines {
    pub before: Vec<u64>,
    pub total: u64,
}

/// The lines before each segment of `layout` in `file`, read whole; `None`
/// when it has a quote (a line end may then lie inside a field, and a
/// bound inside a record).
pub fn scan(mut file: impl Read, layout: &Layout) -> io::Result<Option<Lines>> {
    let n = layout.warm.len();
    let mut out = vec![0; n];
    let mut buf = vec![0u8; 1 << 20];
    let (mut pos, mut lines, mut next) = (0u64, 0u64, 1usize);
    loop {
        let got = file.read(&mut buf)?;
        if got == 0 {
            break;
        }
        let chunk = &buf[..got];
        // (The memchr crate's search: SIMD, where the slice's own is a
        // loop over words.)
        if memchr::memchr(b'"', chunk).is_some() {
            return Ok(None);
        }
        let end = pos + got as u64;
        // The chunk up to each bound in it, then the rest.
        let mut from = 0;
        while next < n && layout.bounds[next] <= end {
            let upto = (layout.bounds[next] - pos) as usize;
            lines += line_ends(&chunk[from..upto]);
            out[next] = lines;
            from = upto;
            next += 1;
        }
        lines += line_ends(&chunk[from..]);
        pos = end;
    }
    Ok(Some(Lines {
        before: out,
        total: lines,
    }))
}

/// The line ends in `bytes`, counted in blocks of 255 bytes (a form the
/// compiler turns into vector instructions).
pub(super) fn line_ends(bytes: &[u8]) -> u64 {
    (bytes.chunks(255))
        .map(|b| {
            b.iter()
                .fold(0u8, |n, &c| n.wrapping_add(u8::from(c == b'\n'))) as u64
        })
        .sum()
}

/// A stretch of a file: `len` bytes from `start`.
pub fn range(path: &Path, start: u64, len: u64) -> io::Result<io::Take<File>> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(start))?;
    Ok(f.take(len))
}

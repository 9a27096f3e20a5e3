//! A trace read into [`Block`]s, on demand: the one place where a parallel
//! run checks an event's arity (an event of a known name with another
//! arity ends the stream, as the sequential monitor would refuse it). A
//! run that skips bad lines ([`Blocks::skipping`]) drops them here instead,
//! each noted in its block ([`Skipped`]), and numbers the events as the
//! sequential run does, which never steps them. A stream
//! ([`Blocks::online`]) ends a block early when its input waits, so that
//! the verdicts of the events read so far are not held back.

use std::fmt;
use std::io::Read;
use std::sync::Arc;

#[cfg(feature = "cluster")]
use serde::{Deserialize, Serialize};

use super::Stop;
use super::block::Block;
use crate::plan::Plan;
use crate::runtime::StepError;
use crate::runtime::names::NameMap;
use crate::trace::{TraceError, TraceReader};

/// Spent blocks kept to be filled again (at most).
const MAX_SPARES: usize = 8;

/// Per event name: its index in the plan's events (as routes number them)
/// and its arity.
pub type Names = NameMap<(u32, usize)>;

/// The [`Names`] of `plan`'s events.
pub fn names(plan: &Plan) -> Names {
    (plan.events.iter().enumerate())
        .map(|(i, (e, &n))| (e.as_bytes().into(), (i as u32, n)))
        .collect()
}

/// A bad line that a run skipping them skipped: why, as the sequential
/// run would have refused it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "cluster", derive(Serialize, Deserialize))]
pub enum Skipped {
    /// Bad input, as the trace reader gives it (a line the reader goes on
    /// after).
    Trace(TraceError),
    /// An event of a known name with another arity.
    Arity {
        /// Its line.
        line: u64,
        /// The error, as the monitor gives it.
        error: StepError,
        /// Its last argument (for the hint about time stamps).
        last: Option<Box<[u8]>>,
    },
    /// With `strict`, an event of a name the specification does not know.
    Unknown {
        /// Its line.
        line: u64,
        /// Its name.
        name: Box<[u8]>,
    },
}

impl Skipped {
    /// The line skipped.
    pub fn line(&self) -> u64 {
        match self {
            Skipped::Trace(e) => e.line,
            Skipped::Arity { line, .. } | Skipped::Unknown { line, .. } => *line,
        }
    }
}

/// What a run needs of a stream (standard input from a pipe) beside its
/// bytes.
#[derive(Clone)]
pub struct Online {
    /// Whether more of it is at hand or comes soon (false: the next read
    /// would wait for the writer, for longer than this waited).
    pub at_hand: Arc<dyn Fn() -> bool + Send + Sync>,
    /// Ends it: a read that waits for the writer, or comes later, finds
    /// the end. Called when the run ends (before its input does when the
    /// output is closed), so that no thread waits on for a writer that
    /// may never write again.
    pub close: Arc<dyn Fn() + Send + Sync>,
}

impl fmt::Debug for Online {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Online")
    }
}

/// The blocks of a trace, read on demand.
pub struct Blocks<'a, R: Read> {
    reader: TraceReader<R>,
    names: &'a Names,
    stop: &'a (dyn Fn() -> bool + Sync),
    done: bool,
    /// The sizes of the last full block's byte, field and event vectors.
    room: (usize, usize, usize),
    /// Spent blocks, emptied, to fill again.
    spares: Vec<Block>,
    /// The part of the trace and its name, set on every block.
    part: u32,
    source: String,
    /// Whether bad lines are skipped (`Some`), and then whether events of
    /// names the specification does not know are bad (`strict`).
    skip: Option<bool>,
    /// Events read and skipped so far (the reader numbers them).
    dropped: u64,
    /// Whether each event is a time-point whose number a skipped one keeps
    /// ([`Blocks::timepoints`]).
    points: bool,
    /// A stream's probe: a block ends early where the stream waits.
    online: Option<Online>,
    /// Whether the last block ended early, the stream waiting.
    idle: bool,
}

impl<'a, R: Read> Blocks<'a, R> {
    /// The blocks of `reader`; `names` gives each event name's index and
    /// arity; `stop()` ends the stream early.
    pub fn new(
        reader: TraceReader<R>,
        names: &'a Names,
        stop: &'a (dyn Fn() -> bool + Sync),
    ) -> Self {
        Blocks {
            reader,
            names,
            stop,
            done: false,
            room: (0, 0, 0),
            spares: Vec::new(),
            part: 0,
            source: String::new(),
            skip: None,
            dropped: 0,
            points: false,
            online: None,
            idle: false,
        }
    }

    /// The same, for a stream whose probe is `online`: a block with events
    /// ends where the next one is not at hand and the stream waits (see
    /// [`Blocks::idle`]), so that a run hands on their verdicts while it
    /// waits, as a sequential run does.
    pub fn online(mut self, online: Option<Online>) -> Self {
        self.online = online;
        self
    }

    /// Whether the last block ended early because the stream waits (more
    /// may come).
    pub fn idle(&self) -> bool {
        self.idle
    }

    /// The same, skipping the bad lines that the sequential run skips (its
    /// reader must go on after a bad event: [`TraceReader::skip_bad_events`]):
    /// those the reader refuses, events of a known name with another arity
    /// and, when `strict`, of a name the specification does not know.
    pub fn skipping(mut self, strict: bool) -> Self {
        self.skip = Some(strict);
        self
    }

    /// The same, each event numbered as a time-point of its own (a run with
    /// `--timepoints` of a trace of one event per record): a bad event
    /// skipped keeps its number, as the sequential run's time-points keep
    /// theirs, so that the events after it are numbered as read.
    pub fn timepoints(mut self) -> Self {
        self.points = true;
        self
    }

    /// The same, its blocks marked as of part `part` of the trace, read
    /// from the input named `source`.
    #[cfg(any(test, feature = "cluster"))]
    pub fn part(mut self, part: u32, source: &str) -> Self {
        self.part = part;
        source.clone_into(&mut self.source);
        self
    }

    /// Takes back a block that every reader of it is done with, to be
    /// filled again (its memory reused).
    pub fn reuse(&mut self, mut block: Block) {
        if self.spares.len() < MAX_SPARES {
            block.clear();
            self.spares.push(block);
        }
    }

    /// Whether the trace is plain CSV (no header), uncompressed.
    pub fn plain_csv(&self) -> bool {
        self.reader.format() == crate::trace::Format::Plain
            && self.reader.compression() == crate::trace::Compression::None
    }

    /// Whether the last block has been read.
    pub fn done(&self) -> bool {
        self.done
    }

    /// The next block; after the last one (which may be empty, and may
    /// carry a [`Stop`]), `None`.
    pub fn next_block(&mut self) -> Option<Block> {
        if self.done {
            return None;
        }
        // A spent block, or one with room for as much as the block before
        // held: no growing (and no fresh pages) on the way.
        let mut block = self
            .spares
            .pop()
            .unwrap_or_else(|| Block::with_room(self.room));
        block.part = self.part;
        self.idle = false;
        loop {
            if let Some(online) = &self.online
                && !block.events.is_empty()
                && !self.reader.event_at_hand()
                && !(online.at_hand)()
            {
                self.idle = true;
                return Some(self.seal(block));
            }
            let next = self.reader.next_event();
            if (self.stop)() {
                block.end = Some(Stop::Interrupted);
                break;
            }
            let event = match next {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(e) => {
                    if self.skip.is_some() && !self.reader.failed() {
                        block.skipped.push(Skipped::Trace(e));
                        continue;
                    }
                    block.end = Some(Stop::Trace(e));
                    break;
                }
            };
            let known = self.names.get(event.name).copied();
            if self.skip == Some(true) && known.is_none() {
                self.dropped += u64::from(!self.points);
                let name = event.name.into();
                block.skipped.push(Skipped::Unknown {
                    line: event.line,
                    name,
                });
                continue;
            }
            let (name, expected) = known.unwrap_or((u32::MAX, event.arity()));
            if expected != event.arity() {
                let line = event.line;
                let error = StepError::Arity {
                    event: String::from_utf8_lossy(event.name).into_owned(),
                    expected,
                    found: event.arity(),
                };
                let last = event.arity().checked_sub(1).map(|i| event.arg(i).into());
                if self.skip.is_some() {
                    self.dropped += u64::from(!self.points);
                    block.skipped.push(Skipped::Arity { line, error, last });
                    continue;
                }
                block.end = Some(Stop::Refused { line, error, last });
                break;
            }
            block.push(&event, name);
            if let Some(last) = block.events.last_mut() {
                // Numbered as the sequential run numbers the events it steps.
                last.number -= self.dropped;
            }
            // A run of the same record: one event of the block.
            let repeats = self.reader.repeats(u64::MAX);
            if let Some(last) = block.events.last_mut() {
                last.repeats = repeats;
            }
            if block.full() {
                self.room = block.sizes();
                return Some(self.seal(block));
            }
        }
        self.done = true;
        block.last = true;
        Some(self.seal(block))
    }

    fn seal(&self, mut block: Block) -> Block {
        block.bytes_read = self.reader.bytes_read();
        block.timed = self.reader.has_time();
        block.source.clone_from(&self.source);
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Format, TraceOptions};

    /// Every event of `trace` as (line, name, arguments), read in blocks,
    /// each block handed back for reuse when `reuse`.
    fn read_all(trace: &str, format: Format, reuse: bool) -> Vec<(u64, String, Vec<String>)> {
        let names: Names = [
            (b"p".as_slice().into(), (0, 2)),
            (b"q".as_slice().into(), (1, 1)),
        ]
        .into();
        let options = TraceOptions {
            timed: false,
            format,
        };
        let reader = TraceReader::new(trace.as_bytes(), options);
        let stop = || false;
        let mut blocks = Blocks::new(reader, &names, &stop);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let mut out = Vec::new();
        while let Some(block) = blocks.next_block() {
            assert!(block.end.is_none(), "{:?}", block.end);
            let mut fields = Vec::new();
            for ev in &block.events {
                block.fields_of(ev, &mut fields);
                let args = block.args_of(ev);
                assert_eq!(args.len() + 1, fields.len());
                assert_eq!(args.to_vec(), fields[1..].to_vec());
                for (k, f) in fields[1..].iter().enumerate() {
                    assert_eq!(block.arg(ev, k), Some(*f));
                }
                assert_eq!(block.name_of(ev), fields[0]);
                out.push((
                    ev.line,
                    text(fields[0]),
                    fields[1..].iter().map(|f| text(f)).collect(),
                ));
            }
            if reuse {
                blocks.reuse(block);
            }
        }
        out
    }

    fn event(line: u64, name: &str, args: &[&str]) -> (u64, String, Vec<String>) {
        let args = args.iter().map(|a| a.to_string()).collect();
        (line, name.into(), args)
    }

    #[test]
    fn lines_copied_whole_and_field_by_field_read_alike_in_reused_blocks() {
        // Plain lines (copied whole), a CRLF line, quoted fields and CRV's
        // trimmed fields (copied field by field), an empty argument; more
        // events than one block holds.
        let mut plain = String::new();
        for i in 0..5000 {
            match i % 4 {
                0 => plain.push_str(&format!("p,a{i},b\n")),
                1 => plain.push_str(&format!("q,\"x,{i}\"\n")),
                2 => plain.push_str(&format!("p,,{i}\r\n")),
                _ => plain.push_str("q,\"\"\"\"\n"),
            }
        }
        let fresh = read_all(&plain, Format::Plain, false);
        assert_eq!(fresh.len(), 5000);
        assert_eq!(fresh[0], event(1, "p", &["a0", "b"]));
        assert_eq!(fresh[1], event(2, "q", &["x,1"]));
        assert_eq!(fresh[2], event(3, "p", &["", "2"]));
        assert_eq!(fresh[3], event(4, "q", &["\""]));
        assert_eq!(read_all(&plain, Format::Plain, true), fresh);
        let crv = "event, a, b\np , 1 ,2\nq,  3\n";
        let expected = vec![event(2, "p", &["1", "2"]), event(3, "q", &["3"])];
        assert_eq!(read_all(crv, Format::Crv, true), expected);
    }

    #[test]
    fn plain_fields_are_trimmed_as_the_sequential_reader_trims_them() {
        // Blanks around fields (not adjacent spans: copied field by field),
        // only after the last field (adjacent: copied whole), a CRLF after
        // blanks, a quoted field after blanks; the same events as
        // `TraceReader` gives, in more than one block.
        let mut trace = String::new();
        for i in 0..3000 {
            match i % 4 {
                0 => trace.push_str(&format!("p , a{i} ,\tb\n")),
                1 => trace.push_str(&format!("q,x{i} \n")),
                2 => trace.push_str(&format!(" p,{i}, c \r\n")),
                _ => trace.push_str("q,  \"y \"\n"),
            }
        }
        let got = read_all(&trace, Format::Plain, true);
        assert_eq!(got.len(), 3000);
        assert_eq!(got[0], event(1, "p", &["a0", "b"]));
        assert_eq!(got[1], event(2, "q", &["x1"]));
        assert_eq!(got[2], event(3, "p", &["2", "c"]));
        assert_eq!(got[3], event(4, "q", &["y "]));
        let mut reader = TraceReader::new(trace.as_bytes(), TraceOptions::default());
        let mut sequential = Vec::new();
        while let Ok(Some(e)) = reader.next_event() {
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let args = e.args().map(text).collect::<Vec<_>>();
            sequential.push((e.line, text(e.name), args));
        }
        assert_eq!(got, sequential);
        // A quoted field keeps its blanks; a CRLF line after blanks is
        // trimmed (the lines of the cluster's former reader test).
        let short = "login, root\n logout ,\troot \r\nlogin,\" x \"\n";
        let expected = vec![
            event(1, "login", &["root"]),
            event(2, "logout", &["root"]),
            event(3, "login", &[" x "]),
        ];
        assert_eq!(read_all(short, Format::Plain, false), expected);
    }

    #[test]
    fn a_run_of_one_record_is_one_event_and_the_last_block_is_marked() {
        // (The reader finds a run from the second event on.)
        let trace = "p,b,c\nq,a\nq,a\nq,a\nq,a\n";
        let names: Names = [
            (b"p".as_slice().into(), (0, 2)),
            (b"q".as_slice().into(), (1, 1)),
        ]
        .into();
        let reader = TraceReader::new(trace.as_bytes(), TraceOptions::default());
        let stop = || false;
        let mut blocks = Blocks::new(reader, &names, &stop).part(3, "t.csv");
        let block = blocks.next_block().expect("a block");
        let got: Vec<(u64, u64, u32, u64)> = (block.events.iter())
            .map(|e| (e.number, e.line, e.name, e.repeats))
            .collect();
        assert_eq!(got, [(1, 1, 0, 0), (2, 2, 1, 3)]);
        assert!(block.last && block.end.is_none());
        assert_eq!((block.part, block.last_number()), (3, Some(5)));
        assert_eq!(block.source, "t.csv");
        assert!(blocks.next_block().is_none());
    }

    /// A stream of `parts`, each readable once the test has opened it
    /// (`open` parts so far); `given` parts have been read whole. A read
    /// while the next part is not open is a read that would wait.
    struct Parts {
        parts: Vec<&'static [u8]>,
        given: Arc<std::sync::atomic::AtomicUsize>,
        open: Arc<std::sync::atomic::AtomicUsize>,
        /// Bytes of the current part read.
        at: usize,
    }

    impl Read for Parts {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            use std::sync::atomic::Ordering::SeqCst;
            let given = self.given.load(SeqCst);
            let Some(part) = self.parts.get(given) else {
                return Ok(0);
            };
            assert!(given < self.open.load(SeqCst), "a read that would wait");
            let n = buf.len().min(part.len() - self.at);
            buf[..n].copy_from_slice(&part[self.at..self.at + n]);
            self.at += n;
            if self.at == part.len() {
                self.at = 0;
                self.given.store(given + 1, SeqCst);
            }
            Ok(n)
        }
    }

    #[test]
    fn a_stream_that_waits_ends_the_block_at_the_last_event_read() {
        use std::sync::atomic::AtomicUsize;
        use std::sync::atomic::Ordering::SeqCst;
        let names: Names = [
            (b"p".as_slice().into(), (0, 2)),
            (b"q".as_slice().into(), (1, 1)),
        ]
        .into();
        let parts: Vec<&[u8]> = vec![b"p,a,b\nq,c\nq,c\n", b"q,d\n"];
        let count = parts.len();
        let given = Arc::new(AtomicUsize::new(0));
        let open = Arc::new(AtomicUsize::new(1));
        let probes = Arc::new(AtomicUsize::new(0));
        let (g, o, n) = (Arc::clone(&given), Arc::clone(&open), Arc::clone(&probes));
        let online = Online {
            // At hand: an open part not read yet, or the end.
            at_hand: Arc::new(move || {
                n.fetch_add(1, SeqCst);
                let given = g.load(SeqCst);
                given < o.load(SeqCst) || given == count
            }),
            close: Arc::new(|| {}),
        };
        let stream = Parts {
            parts,
            given: Arc::clone(&given),
            open: Arc::clone(&open),
            at: 0,
        };
        let options = TraceOptions {
            timed: false,
            format: Format::Plain,
        };
        let stop = || false;
        let reader = TraceReader::new(stream, options);
        let mut blocks = Blocks::new(reader, &names, &stop).online(Some(online));
        let numbers = |b: &Block| -> Vec<(u64, u64, u64)> {
            (b.events.iter())
                .map(|e| (e.number, e.line, e.repeats))
                .collect()
        };
        // The first part's events (a run of two `q,c`), and then the stream
        // waits: the block ends there, not the trace. The probe is asked
        // once, when no line is left in the buffer.
        let first = blocks.next_block().expect("a block");
        assert_eq!(numbers(&first), [(1, 1, 0), (2, 2, 1)]);
        assert!(!first.last && first.end.is_none());
        assert!(blocks.idle() && !blocks.done());
        assert_eq!(probes.load(SeqCst), 1);
        // The second part comes, then the end.
        open.store(2, SeqCst);
        let second = blocks.next_block().expect("a block");
        assert_eq!(numbers(&second), [(4, 4, 0)]);
        assert!(second.last && second.end.is_none());
        assert!(!blocks.idle() && blocks.done());
        assert!(blocks.next_block().is_none());
    }

    #[test]
    fn an_event_of_another_arity_ends_the_stream_at_its_line() {
        let names: Names = [(b"q".as_slice().into(), (0, 1))].into();
        let reader = TraceReader::new(&b"q,a\nq,a,12\nq,b\n"[..], TraceOptions::default());
        let stop = || false;
        let mut blocks = Blocks::new(reader, &names, &stop).part(1, "part1.csv");
        let block = blocks.next_block().expect("a block");
        assert_eq!(block.events.len(), 1);
        assert!(block.last);
        assert_eq!(block.source, "part1.csv");
        match &block.end {
            Some(Stop::Refused { line, error, last }) => {
                assert_eq!(*line, 2);
                let expected = StepError::Arity {
                    event: "q".into(),
                    expected: 1,
                    found: 2,
                };
                assert_eq!(error, &expected);
                assert_eq!(last.as_deref(), Some(&b"12"[..]));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_run_that_skips_drops_bad_lines_and_numbers_the_events_it_keeps() {
        let names: Names = [(b"q".as_slice().into(), (0, 1))].into();
        let trace = "q,a\nq,a,12\n,x\nr,1\nq,b\n";
        let options = TraceOptions::default();
        let stop = || false;
        for strict in [false, true] {
            let reader = TraceReader::new(trace.as_bytes(), options).skip_bad_events(true);
            let mut blocks = Blocks::new(reader, &names, &stop).skipping(strict);
            let block = blocks.next_block().expect("a block");
            assert!(block.last && block.end.is_none(), "{:?}", block.end);
            let kept: Vec<(u64, u64)> = block.events.iter().map(|e| (e.number, e.line)).collect();
            let lines: Vec<u64> = block.skipped.iter().map(Skipped::line).collect();
            if strict {
                // `r` is not in the specification: skipped too.
                assert_eq!(kept, [(1, 1), (2, 5)]);
                assert_eq!(lines, [2, 3, 4]);
                assert!(matches!(&block.skipped[2], Skipped::Unknown { name, .. } if &name[..] == b"r"));
            } else {
                assert_eq!(kept, [(1, 1), (2, 4), (3, 5)]);
                assert_eq!(lines, [2, 3]);
            }
            assert!(matches!(&block.skipped[0], Skipped::Arity { last: Some(l), .. } if &l[..] == b"12"));
            assert!(matches!(&block.skipped[1], Skipped::Trace(e) if e.line == 3));
        }
        // As time-points, the events skipped keep their numbers (the line
        // the reader refuses is no event).
        for (strict, numbers) in [(false, [(1, 1), (3, 4), (4, 5)]), (true, [(1, 1), (4, 5), (0, 0)])] {
            let reader = TraceReader::new(trace.as_bytes(), options).skip_bad_events(true);
            let mut blocks = (Blocks::new(reader, &names, &stop).skipping(strict)).timepoints();
            let block = blocks.next_block().expect("a block");
            let kept: Vec<(u64, u64)> = block.events.iter().map(|e| (e.number, e.line)).collect();
            let want: Vec<(u64, u64)> = numbers.into_iter().filter(|n| n.0 > 0).collect();
            assert_eq!(kept, want, "strict {strict}");
        }
    }
}

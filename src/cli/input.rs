//! The trace input of `hindsight run`, and Ctrl-C.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use super::Output;
use crate::parallel::read::Online;

/// Set by the first SIGINT (the session's cancel flag).
static INTERRUPTED: LazyLock<Arc<AtomicBool>> = LazyLock::new(Arc::default);

/// The queue of the input thread, if there is one: SIGINT wakes the main
/// thread through it when it waits for data.
static WAKE: Mutex<Option<SyncSender<Chunk>>> = Mutex::new(None);

/// Size of the input thread's reads.
const CHUNK: usize = 64 * 1024;

/// Chunks in flight between the input thread and the main thread (bounds
/// the memory used when the input is faster than the monitor).
const QUEUE: usize = 8;

/// What the input thread hands over.
enum Chunk {
    Data(Vec<u8>),
    End,
    Error(io::Error),
    /// Nothing: look at the interruption flag.
    Wake,
}

/// The interruption flag, set by Ctrl-C (SIGINT).
pub struct Interrupt(());

impl Interrupt {
    /// Installs the SIGINT handler: the first SIGINT sets the flag and wakes
    /// the input; a second one exits at once with status 130. (If no handler
    /// can be installed, SIGINT keeps its default effect.)
    pub fn install() -> Interrupt {
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            if let Ok(wake) = WAKE.lock()
                && let Some(tx) = wake.as_ref()
            {
                // If the queue is full, the main thread is not waiting.
                let _ = tx.try_send(Chunk::Wake);
            }
        });
        Interrupt(())
    }

    /// The flag, for [`crate::session::Session::set_cancel`].
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&INTERRUPTED)
    }
}

/// Standard input, when it is a regular file (`hindsight run SPEC <
/// trace.csv`): it can be read in blocks by a parallel run, as a file
/// named on the command line is. (A pipe is an online stream, whose
/// verdicts are printed as soon as each event is read.)
#[cfg(unix)]
pub fn stdin_file() -> Option<File> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let file = File::from(fd);
    file.metadata().ok()?.is_file().then_some(file)
}

/// Standard input as a regular file: only known on Unix.
#[cfg(not(unix))]
pub fn stdin_file() -> Option<File> {
    None
}

/// The trace at `path`, or standard input. A regular file is read directly;
/// anything else by a helper thread (see the [module](super) docs), which
/// flushes `out` whenever the reader has to wait for data.
pub fn open_input(path: Option<&Path>, out: &Output) -> io::Result<Box<dyn Read>> {
    match path {
        Some(path) => {
            let file = File::open(path)?;
            if file.metadata()?.is_file() {
                Ok(Box::new(file))
            } else {
                piped(file, out)
            }
        }
        None => piped(io::stdin(), out),
    }
}

/// How long a parallel run's reader waits for more of a stream before it
/// hands on the events read so far (see [`Online`]).
const PATIENCE: Duration = Duration::from_millis(10);

/// The trace at `path` (a pipe), or standard input, read by a helper
/// thread, for a parallel run: the stream, and its probe (whether more of
/// it comes within [`PATIENCE`]).
pub fn stream(path: Option<&Path>) -> io::Result<(Stream, Online)> {
    let stream = match path {
        Some(path) => Stream::start(File::open(path)?)?,
        None => Stream::start(io::stdin())?,
    };
    let state = Arc::clone(&stream.queue);
    let (closed, wake) = (Arc::clone(&stream.closed), stream.wake.clone());
    let online = Online {
        at_hand: Arc::new(move || {
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            state.at_hand(Some(PATIENCE))
        }),
        // (Not through the queue's lock, which a waiting read holds.)
        close: Arc::new(move || {
            closed.store(true, Ordering::SeqCst);
            let _ = wake.try_send(Chunk::Wake);
        }),
    };
    Ok((stream, online))
}

/// Reads `input` in a helper thread, flushing `out` before it waits.
fn piped<R: Read + Send + 'static>(input: R, out: &Output) -> io::Result<Box<dyn Read>> {
    Ok(Box::new(Piped {
        stream: Stream::start(input)?,
        out: out.clone(),
    }))
}

/// A stream read by a helper thread (which can be sent to another
/// thread, and whose waits SIGINT interrupts, or closing it).
pub struct Stream {
    queue: Arc<Mutex<Queue>>,
    /// Set when the stream is closed: reads find the end.
    closed: Arc<AtomicBool>,
    /// The queue's sender, to wake a read that waits.
    wake: SyncSender<Chunk>,
}

/// The reading end of the helper thread's queue.
struct Queue {
    rx: Receiver<Chunk>,
    closed: Arc<AtomicBool>,
    /// The chunk being read, and how much of it has been.
    chunk: Vec<u8>,
    pos: usize,
    /// A chunk received by [`Queue::at_hand`], to read next.
    next: Option<Chunk>,
    done: bool,
}

impl Stream {
    /// Starts the helper thread that reads `input`.
    fn start<R: Read + Send + 'static>(mut input: R) -> io::Result<Stream> {
        let (tx, rx) = sync_channel(QUEUE);
        if let Ok(mut wake) = WAKE.lock() {
            *wake = Some(tx.clone());
        }
        let sender = tx.clone();
        thread::Builder::new()
            .name("input".to_owned())
            .spawn(move || {
                let mut buf = vec![0; CHUNK];
                loop {
                    let chunk = match input.read(&mut buf) {
                        Ok(0) => Chunk::End,
                        Ok(n) => Chunk::Data(buf[..n].to_vec()),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => Chunk::Error(e),
                    };
                    let last = !matches!(chunk, Chunk::Data(_));
                    if sender.send(chunk).is_err() || last {
                        return;
                    }
                }
            })?;
        let closed = Arc::new(AtomicBool::new(false));
        let queue = Queue {
            rx,
            closed: Arc::clone(&closed),
            chunk: Vec::new(),
            pos: 0,
            next: None,
            done: false,
        };
        Ok(Stream {
            queue: Arc::new(Mutex::new(queue)),
            closed,
            wake: tx,
        })
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Queue {
    /// Whether a read would not wait: data, the end or an error at hand,
    /// or, waiting at most `patience`, come.
    fn at_hand(&mut self, patience: Option<Duration>) -> bool {
        if self.done || self.pos < self.chunk.len() || self.next.is_some() {
            return true;
        }
        let got = match patience {
            None => self
                .rx
                .try_recv()
                .map_err(|e| e == TryRecvError::Disconnected),
            Some(wait) => {
                (self.rx.recv_timeout(wait)).map_err(|e| e == RecvTimeoutError::Disconnected)
            }
        };
        match got {
            Ok(chunk) => {
                self.next = Some(chunk);
                true
            }
            // Disconnected: the end.
            Err(ended) => ended,
        }
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            // After an interruption the input ends here (the event loop
            // drops whatever it reads after the flag is set); so it does
            // once the stream is closed.
            if self.done
                || INTERRUPTED.load(Ordering::Relaxed)
                || self.closed.load(Ordering::Relaxed)
            {
                return Ok(0);
            }
            if self.pos < self.chunk.len() {
                let n = buf.len().min(self.chunk.len() - self.pos);
                buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            let next = match self.next.take() {
                Some(chunk) => Ok(chunk),
                None => self.rx.recv(),
            };
            match next {
                Ok(Chunk::Data(data)) => {
                    self.chunk = data;
                    self.pos = 0;
                }
                Ok(Chunk::Wake) => {}
                Ok(Chunk::End) | Err(_) => self.done = true,
                Ok(Chunk::Error(e)) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.queue().read(buf)
    }
}

/// A stream read on the main thread, which flushes the output before it
/// waits for the stream (the verdicts so far show).
struct Piped {
    stream: Stream,
    out: Output,
}

impl Read for Piped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut queue = self.stream.queue();
        if !queue.at_hand(None) {
            // Caught up with the input: show the verdicts so far.
            self.out.flush_quietly();
        }
        queue.read(buf)
    }
}

//! Buffered standard output that notices when it is closed.

use std::cell::{Cell, RefCell};
use std::io::{self, BufWriter, Write};
use std::rc::Rc;

struct Inner {
    out: RefCell<BufWriter<Box<dyn Write>>>,
    closed: Cell<bool>,
}

/// Buffered, locked standard output, shared (within the main thread) by the
/// printer, which writes, and the input, which flushes before it waits.
///
/// After the first failed write or flush it is *closed*: nothing more is
/// written and every call fails with [`io::ErrorKind::BrokenPipe`].
#[derive(Clone)]
pub struct Output(Rc<Inner>);

impl Output {
    /// Buffered output to `out` (standard output, or a writer that keeps a
    /// progress indicator out of the way of its lines).
    pub fn new(out: impl Write + 'static) -> Output {
        Output(Rc::new(Inner {
            out: RefCell::new(BufWriter::new(Box::new(out))),
            closed: Cell::new(false),
        }))
    }

    /// Whether a write or flush has failed.
    pub fn is_closed(&self) -> bool {
        self.0.closed.get()
    }

    /// Flushes, remembering a failure (for the input, before it waits).
    pub fn flush_quietly(&self) {
        let _ = self.clone().flush();
    }

    fn closed_error() -> io::Error {
        io::Error::new(io::ErrorKind::BrokenPipe, "standard output is closed")
    }

    fn check<T>(&self, result: io::Result<T>) -> io::Result<T> {
        if result.is_err() {
            self.0.closed.set(true);
        }
        result
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.is_closed() {
            return Err(Self::closed_error());
        }
        let result = self.0.out.borrow_mut().write(buf);
        self.check(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.is_closed() {
            return Err(Self::closed_error());
        }
        let result = self.0.out.borrow_mut().write_all(buf);
        self.check(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.is_closed() {
            return Err(Self::closed_error());
        }
        let result = self.0.out.borrow_mut().flush();
        self.check(result)
    }
}

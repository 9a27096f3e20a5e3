//! The input of every reader: a fixed-size buffer over the user's [`Read`],
//! which decompresses gzip and zstd streams transparently (recognised by
//! their magic numbers, so compressed standard input works too).

use std::io::{self, BufRead, BufReader, Read};

use flate2::read::MultiGzDecoder;

use super::error::{TraceError, read_error};

/// The size of the input buffer (and of each read).
pub(super) const BUFFER: usize = 64 * 1024;

/// The user's reader, with the few bytes read to recognise a compressed
/// stream put back in front, counting the bytes handed out.
pub(super) struct Prefixed<R> {
    head: [u8; 4],
    head_pos: usize,
    head_len: usize,
    inner: R,
    count: u64,
    /// An error met while reading the head, for after it.
    pending: Option<io::Error>,
    /// Whether the user's reader has failed.
    failed: bool,
}

impl<R: Read> Read for Prefixed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = if self.head_pos == self.head_len
            && let Some(e) = self.pending.take()
        {
            self.failed = true;
            return Err(e);
        } else if self.head_pos < self.head_len {
            let n = (self.head_len - self.head_pos).min(buf.len());
            buf[..n].copy_from_slice(&self.head[self.head_pos..self.head_pos + n]);
            self.head_pos += n;
            n
        } else {
            self.inner.read(buf).inspect_err(|_| self.failed = true)?
        };
        self.count += n as u64;
        Ok(n)
    }
}

/// The compression of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (`.gz`), possibly several members.
    Gzip,
    /// Zstandard (`.zst`), possibly several frames.
    Zstd,
}

/// The compression of a stream whose first bytes (up to four) are `head`,
/// by its magic number.
pub fn compression_of(head: &[u8]) -> Compression {
    if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head == [0x28, 0xb5, 0x2f, 0xfd] {
        Compression::Zstd
    } else {
        Compression::None
    }
}

/// The decompressing reader, decided at the first read.
enum Decoder<R: Read> {
    Pending(Option<R>),
    Raw(Prefixed<R>),
    Gzip(Box<MultiGzDecoder<Prefixed<R>>>),
    Zstd(Box<zstd::stream::read::Decoder<'static, BufReader<Prefixed<R>>>>),
}

impl<R: Read> Decoder<R> {
    /// Reads the magic number and picks the decoder.
    fn start(&mut self) -> io::Result<()> {
        let Decoder::Pending(inner) = self else {
            return Ok(());
        };
        let Some(mut inner) = inner.take() else {
            return Err(io::Error::other("the input failed before"));
        };
        let mut head = [0; 4];
        let mut len = 0;
        let mut pending = None;
        while len < head.len() {
            match inner.read(&mut head[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if len == 0 => return Err(e),
                Err(e) => {
                    pending = Some(e);
                    break;
                }
            }
        }
        let prefixed = Prefixed {
            head,
            head_pos: 0,
            head_len: len,
            inner,
            count: 0,
            pending,
            failed: false,
        };
        *self = match compression_of(&head[..len]) {
            Compression::Gzip => Decoder::Gzip(Box::new(MultiGzDecoder::new(prefixed))),
            Compression::Zstd => {
                Decoder::Zstd(Box::new(zstd::stream::read::Decoder::new(prefixed)?))
            }
            Compression::None => Decoder::Raw(prefixed),
        };
        Ok(())
    }

    fn compression(&self) -> Compression {
        match self {
            Decoder::Pending(_) | Decoder::Raw(_) => Compression::None,
            Decoder::Gzip(_) => Compression::Gzip,
            Decoder::Zstd(_) => Compression::Zstd,
        }
    }

    /// Whether a compressed stream's decoder failed on its own (not because
    /// the user's reader did).
    fn decoder_failed(&self) -> bool {
        match self {
            Decoder::Pending(_) | Decoder::Raw(_) => false,
            Decoder::Gzip(d) => !d.get_ref().failed,
            Decoder::Zstd(d) => !d.get_ref().get_ref().failed,
        }
    }

    /// Bytes taken from the user's reader.
    fn raw_count(&self) -> u64 {
        match self {
            Decoder::Pending(_) => 0,
            Decoder::Raw(p) => p.count,
            Decoder::Gzip(d) => d.get_ref().count,
            Decoder::Zstd(d) => d.get_ref().get_ref().count,
        }
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.start()?;
        match self {
            Decoder::Pending(_) => Ok(0),
            Decoder::Raw(r) => r.read(buf),
            Decoder::Gzip(r) => r.read(buf),
            Decoder::Zstd(r) => r.read(buf),
        }
    }
}

/// The buffered, decompressed input.
pub(super) struct Input<R: Read> {
    decoder: Decoder<R>,
    pub(super) buf: Vec<u8>,
    pub(super) pos: usize,
    pub(super) filled: usize,
    eof: bool,
    /// Decompressed bytes before `buf[0]`.
    before: u64,
    /// Lines ended by the bytes consumed through [`BufRead::consume`].
    pub(super) lines: u64,
    /// The offset that [`BufRead::fill_buf`] does not read past (an error
    /// there): the end of an XML event of the maximum size.
    pub(super) cap: u64,
}

impl<R: Read> Input<R> {
    pub(super) fn new(inner: R) -> Self {
        Input {
            decoder: Decoder::Pending(Some(inner)),
            buf: vec![0; BUFFER],
            pos: 0,
            filled: 0,
            eof: false,
            before: 0,
            lines: 0,
            cap: u64::MAX,
        }
    }

    /// Reads into the free end of the buffer, moving the unconsumed bytes to
    /// its front first; `Ok(false)` at the end of the input (or if the buffer
    /// is full of unconsumed bytes: see [`at_eof`](Self::at_eof)).
    pub(super) fn read_more(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos == self.filled {
            self.before += self.pos as u64;
            self.pos = 0;
            self.filled = 0;
        } else if self.pos > 0 {
            // Unconsumed bytes (the start of a record) to the front, so that
            // the whole buffer can be filled after them.
            self.buf.copy_within(self.pos..self.filled, 0);
            self.before += self.pos as u64;
            self.filled -= self.pos;
            self.pos = 0;
        }
        if self.filled == self.buf.len() {
            return Ok(false);
        }
        loop {
            match self.decoder.read(&mut self.buf[self.filled..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.filled += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// [`read_more`](Self::read_more), with a failure as a [`TraceError`] at
    /// `line`.
    pub(super) fn fill(&mut self, line: u64) -> Result<bool, TraceError> {
        self.read_more()
            .map_err(|e| read_error(line, &e, self.decoder_failed()))
    }

    /// Whether the decoder of a compressed input failed on its own (not
    /// because the user's reader did).
    pub(super) fn decoder_failed(&self) -> bool {
        self.decoder.decoder_failed()
    }

    /// Whether the end of the input has been reached.
    #[inline]
    pub(super) fn at_eof(&self) -> bool {
        self.eof
    }

    /// The unconsumed bytes in the buffer.
    #[inline]
    pub(super) fn available(&self) -> &[u8] {
        &self.buf[self.pos..self.filled]
    }

    /// Decompressed bytes consumed so far.
    #[inline]
    pub(super) fn offset(&self) -> u64 {
        self.before + self.pos as u64
    }

    /// Bytes consumed, for progress: of the user's reader if the input is
    /// compressed, else decompressed bytes consumed.
    pub(super) fn progress(&self) -> u64 {
        match self.decoder.compression() {
            Compression::None => self.offset(),
            _ => self.decoder.raw_count(),
        }
    }

    /// The compression detected (`None` before the first read).
    pub(super) fn compression(&self) -> Compression {
        self.decoder.compression()
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.filled {
            self.read_more()?;
        }
        let offset = self.offset();
        if offset >= self.cap {
            return Err(io::Error::other("event too long"));
        }
        let n = self.available().len().min((self.cap - offset) as usize);
        Ok(&self.buf[self.pos..self.pos + n])
    }

    fn consume(&mut self, amt: usize) {
        let end = (self.pos + amt).min(self.filled);
        self.lines += self.buf[self.pos..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        self.pos = end;
    }
}

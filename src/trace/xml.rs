//! The CRV competition's XML traces, streamed by the `quick-xml` pull parser:
//!
//! ```xml
//! <log>
//!   <event>
//!     <name>access</name>
//!     <field><name>user</name><value>alice</value></field>
//!     <field><name>file</name><value>f1</value></field>
//!   </event>
//! </log>
//! ```
//!
//! The `<log>` root may be left out (a sequence of `<event>` elements).
//! Names and values are the text of their elements, exactly (entity and
//! character references resolved, CDATA sections taken as they are); an
//! empty element (`<value/>`) is the empty string. Comments, processing
//! instructions, the XML declaration and white space between elements are
//! ignored; any other element or text is an error. An event's line is the
//! line of its `<event>` tag.

use std::io::Read;

use quick_xml::Reader;
use quick_xml::events::{BytesRef, Event};

use super::diag::{show, too_long};
use super::event::Batch;
use super::fields::{FieldNames, Named};
use super::input::Input;
use super::{TraceError, TraceErrorKind as K};

/// Where the parser is in the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    Top,
    Log,
    Event,
    EventName,
    Field,
    FieldName,
    FieldValue,
    End,
}

impl At {
    /// The element the parser is in, for messages.
    fn element(self) -> &'static str {
        match self {
            At::Top | At::End => "the document",
            At::Log => "<log>",
            At::Event => "<event>",
            At::EventName | At::FieldName => "<name>",
            At::Field => "<field>",
            At::FieldValue => "<value>",
        }
    }
}

/// The XML reader.
pub(super) struct Xml<R: Read> {
    reader: Reader<Input<R>>,
    buf: Vec<u8>,
    at: At,
    named: Named,
    key: Option<std::ops::Range<usize>>,
    value: Option<std::ops::Range<usize>>,
    /// `Some(decimals)` in a timed trace: the time stamps' precision.
    timed: Option<u8>,
    limit: u64,
    /// The line and offset where the current event starts.
    start: (u64, u64),
    /// Whether the events are in a `<log>`.
    rooted: bool,
}

impl<R: Read> Xml<R> {
    pub(super) fn new(input: Input<R>, timed: Option<u8>, limit: u64) -> Self {
        let mut reader = Reader::from_reader(input);
        reader.config_mut().check_end_names = true;
        Xml {
            reader,
            buf: Vec::new(),
            at: At::Top,
            named: Named::default(),
            key: None,
            value: None,
            timed,
            limit,
            start: (1, 0),
            rooted: false,
        }
    }

    /// The input.
    pub(super) fn input(&self) -> &Input<R> {
        self.reader.get_ref()
    }

    fn line(&self) -> u64 {
        self.reader.get_ref().lines + 1
    }

    /// Reads the next event into `batch`; `Ok(false)` at the end.
    pub(super) fn next(
        &mut self,
        batch: &mut Batch,
        names: &FieldNames,
    ) -> Result<bool, TraceError> {
        loop {
            self.buf.clear();
            let event = match self.reader.read_event_into(&mut self.buf) {
                Ok(e) => e,
                Err(e) => {
                    let input = self.reader.get_ref();
                    let (kind, line, message) = if input.offset() >= input.cap {
                        (K::TooLong, self.start.0, too_long(self.limit))
                    } else {
                        let kind = match e {
                            quick_xml::Error::Io(_) if input.decoder_failed() => K::Decompress,
                            quick_xml::Error::Io(_) => K::Io,
                            _ => K::Syntax,
                        };
                        (kind, input.lines + 1, format!("malformed XML: {e}"))
                    };
                    return Err(TraceError::new(kind, line, message));
                }
            };
            let at = self.at;
            let error = |message: String| {
                Err(TraceError::new(
                    K::Syntax,
                    self.reader.get_ref().lines + 1,
                    message,
                ))
            };
            match event {
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
                Event::Text(t) if !matches!(at, At::EventName | At::FieldName | At::FieldValue) => {
                    let text = t.as_bytes();
                    if let Some(start) = text.iter().position(|b| !b.is_ascii_whitespace()) {
                        // The line of the text's first byte that is not white
                        // space (the input has counted the lines of it all).
                        let lines = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count() as u64;
                        let here = self.reader.get_ref().lines + 1;
                        let line = here - lines(text) + lines(&text[..start]);
                        let text = trim_end(&text[start..]);
                        return Err(TraceError::new(
                            K::Syntax,
                            line,
                            format!("unexpected text `{}` in {}", show(text), at.element()),
                        ));
                    }
                }
                Event::Text(t) => {
                    self.named.add(t.as_bytes());
                }
                Event::CData(t) if matches!(at, At::EventName | At::FieldName | At::FieldValue) => {
                    self.named.add(t.as_bytes());
                }
                Event::GeneralRef(r)
                    if matches!(at, At::EventName | At::FieldName | At::FieldValue) =>
                {
                    let mut utf8 = [0; 4];
                    match resolve(&r) {
                        Some(c) => {
                            self.named.add(c.encode_utf8(&mut utf8).as_bytes());
                        }
                        None => return error(format!("unknown entity `&{};`", show(r.as_bytes()))),
                    }
                }
                Event::Start(e) => {
                    let tag = tag(e.name().as_ref());
                    self.open(tag)?;
                }
                Event::Empty(e) => {
                    let tag = tag(e.name().as_ref());
                    self.open(tag)?;
                    if self.close(batch, names)? {
                        return Ok(true);
                    }
                }
                Event::End(_) => {
                    if self.close(batch, names)? {
                        return Ok(true);
                    }
                }
                Event::Eof => {
                    return match at {
                        At::Top | At::End => Ok(false),
                        _ => error(format!("the XML log ends inside {}", at.element())),
                    };
                }
                Event::CData(_) | Event::GeneralRef(_) => {
                    return error(format!("unexpected text in {}", at.element()));
                }
            }
        }
    }

    /// Enters the element `tag`.
    fn open(&mut self, tag: Tag) -> Result<(), TraceError> {
        let at = match (self.at, tag) {
            (At::Top, Tag::Log) if !self.rooted => {
                self.rooted = true;
                At::Log
            }
            (At::Top | At::Log, Tag::Event) => {
                let input = self.reader.get_ref();
                self.start = (input.lines + 1, input.offset());
                self.reader.get_mut().cap = self.start.1.saturating_add(self.limit);
                self.named.clear();
                At::Event
            }
            (At::Event, Tag::Name) => {
                self.named.name = self.named.bytes.len()..self.named.bytes.len();
                At::EventName
            }
            (At::Event, Tag::Field) => {
                self.key = None;
                self.value = None;
                At::Field
            }
            (At::Field, Tag::Name) => At::FieldName,
            (At::Field, Tag::Value) => At::FieldValue,
            (at, tag) => {
                return Err(TraceError::new(
                    K::Syntax,
                    self.line(),
                    format!(
                        "unexpected element <{}> in {}",
                        show(tag.name().as_bytes()),
                        at.element()
                    ),
                ));
            }
        };
        self.at = at;
        self.mark_start();
        Ok(())
    }

    /// Where the text of a name or value starts.
    fn mark_start(&mut self) {
        let here = self.named.bytes.len();
        match self.at {
            At::FieldName => self.key = Some(here..here),
            At::FieldValue => self.value = Some(here..here),
            _ => {}
        }
    }

    /// Leaves the element just closed (quick-xml checked that its end tag
    /// matches); `true` when an event is complete in `batch`.
    fn close(&mut self, batch: &mut Batch, names: &FieldNames) -> Result<bool, TraceError> {
        let end = self.named.bytes.len();
        let line = self.line();
        let fail = |message: String| Err(TraceError::new(K::Syntax, line, message));
        self.at = match self.at {
            At::Log => At::End,
            At::EventName => {
                self.named.name.end = end;
                At::Event
            }
            At::FieldName => {
                if let Some(k) = &mut self.key {
                    k.end = end;
                }
                At::Field
            }
            At::FieldValue => {
                if let Some(v) = &mut self.value {
                    v.end = end;
                }
                At::Field
            }
            At::Field => {
                let (Some(key), Some(value)) = (self.key.take(), self.value.take()) else {
                    return fail("a <field> needs a <name> and a <value>".to_owned());
                };
                self.named.fields.push((key, value));
                At::Event
            }
            At::Event => {
                self.reader.get_mut().cap = u64::MAX;
                let line = self.start.0;
                if self.named.name.is_empty() {
                    return Err(TraceError::new(
                        K::EmptyName,
                        line,
                        "an <event> needs a non-empty <name>",
                    ));
                }
                self.named
                    .emit(names, self.timed, batch, line)
                    .map_err(|(kind, message)| TraceError::new(kind, line, message))?;
                self.at = if self.rooted { At::Log } else { At::Top };
                return Ok(true);
            }
            At::Top | At::End => At::End,
        };
        Ok(false)
    }
}

/// An element name.
enum Tag {
    Log,
    Event,
    Name,
    Field,
    Value,
    /// Any other (an error: only then a copy).
    Other(String),
}

impl Tag {
    fn name(&self) -> &str {
        match self {
            Tag::Log => "log",
            Tag::Event => "event",
            Tag::Name => "name",
            Tag::Field => "field",
            Tag::Value => "value",
            Tag::Other(name) => name,
        }
    }
}

/// The element named `name`.
fn tag(name: &str) -> Tag {
    match name {
        "log" => Tag::Log,
        "event" => Tag::Event,
        "name" => Tag::Name,
        "field" => Tag::Field,
        "value" => Tag::Value,
        other => Tag::Other(other.to_owned()),
    }
}

/// `text` without the white space at its end.
fn trim_end(text: &[u8]) -> &[u8] {
    let end = text
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |e| e + 1);
    &text[..end]
}

/// The character of an entity or character reference.
fn resolve(r: &BytesRef<'_>) -> Option<char> {
    if r.is_char_ref() {
        return r.resolve_char_ref().ok().flatten();
    }
    match &**r {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => None,
    }
}

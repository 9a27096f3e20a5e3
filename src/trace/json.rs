//! The CRV competition's JSON traces: one object per event, its only key the
//! event name and its value an object of named fields,
//!
//! ```json
//! {"access": {"user": "alice", "file": "f1"}}
//! {"logout": {"user": "alice"}}
//! ```
//!
//! as JSON lines or any sequence of such objects separated by white space
//! (also in one JSON array, `[{...}, {...}]`). A field's value is a string,
//! a number (its text as written: `5`, `-2.5`) or a boolean. The fields may
//! also be an array of values (`{"p": ["a", 1]}`: positional) or `{}`/`[]`
//! for none. An event's line is the line of its opening `{`.
//!
//! The reader finds each object's end itself (counting braces outside
//! strings), then hands the object to `serde_json`, which parses it without
//! allocating per field.

use std::fmt;
use std::io::Read;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::diag::{show, too_long};
use super::event::Batch;
use super::fields::{FieldNames, Named};
use super::input::Input;
use super::{TraceError, TraceErrorKind as K};

/// The JSON reader.
pub(super) struct Json {
    line: u64,
    /// `Some(decimals)` in a timed trace: the time stamps' precision.
    timed: Option<u8>,
    limit: u64,
    record: Vec<u8>,
    named: Named,
    /// Whether the events are in an array, and whether it was opened.
    array: Option<bool>,
    /// Whether the array was closed.
    closed: bool,
}

impl Json {
    pub(super) fn new(timed: Option<u8>, limit: u64) -> Self {
        Json {
            line: 1,
            timed,
            limit,
            record: Vec::new(),
            named: Named::default(),
            array: None,
            closed: false,
        }
    }

    fn error(&self, message: String) -> TraceError {
        TraceError::new(K::Syntax, self.line, message)
    }

    /// Reads the next event into `batch`; `Ok(false)` at the end.
    pub(super) fn next<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
        names: &FieldNames,
    ) -> Result<bool, TraceError> {
        // Up to the next `{`.
        let mut comma = false;
        loop {
            if input.pos == input.filled && !input.fill(self.line)? {
                if self.array == Some(true) && !self.closed {
                    return Err(self.error("the JSON array of events is never closed".to_owned()));
                }
                return Ok(false);
            }
            let b = input.buf[input.pos];
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                b'[' if self.array.is_none() => self.array = Some(true),
                b',' if self.array == Some(true) && !self.closed && !comma => comma = true,
                b']' if self.array == Some(true) && !self.closed => self.closed = true,
                b'{' if !self.closed => break,
                _ => {
                    return Err(self.error(format!(
                        "expected `{{` starting an event object, found `{}`",
                        show(&[b])
                    )));
                }
            }
            input.pos += 1;
        }
        self.array.get_or_insert(false);
        let start = self.line;
        self.frame(input, start)?;
        self.named.clear();
        let mut de = serde_json::Deserializer::from_slice(&self.record);
        let result = EventSeed(&mut self.named)
            .deserialize(&mut de)
            .and_then(|()| de.end());
        if let Err(e) = result {
            let mut message = e.to_string();
            if let Some(at) = message.rfind(" at line ") {
                message.truncate(at);
            }
            return Err(TraceError::new(
                K::Syntax,
                start + (e.line() as u64).saturating_sub(1),
                format!("invalid JSON event: {message}"),
            ));
        }
        self.named
            .emit(names, self.timed, batch, start)
            .map_err(|(kind, message)| TraceError::new(kind, start, message))?;
        Ok(true)
    }

    /// Copies the object that starts at the input's `{` into `record`.
    fn frame<R: Read>(&mut self, input: &mut Input<R>, start: u64) -> Result<(), TraceError> {
        self.record.clear();
        let (mut depth, mut string, mut escape) = (0u32, false, false);
        loop {
            if input.pos == input.filled && !input.fill(self.line)? {
                return Err(TraceError::new(
                    K::Syntax,
                    start,
                    "the JSON object of an event is never closed",
                ));
            }
            let chunk = &input.buf[input.pos..input.filled];
            for (i, &b) in chunk.iter().enumerate() {
                if string {
                    if escape {
                        escape = false;
                    } else if b == b'\\' {
                        escape = true;
                    } else if b == b'"' {
                        string = false;
                    }
                } else {
                    match b {
                        b'"' => string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                }
                self.line += u64::from(b == b'\n');
                if depth == 0 {
                    self.record.extend_from_slice(&chunk[..=i]);
                    input.pos += i + 1;
                    return Ok(());
                }
                if (self.record.len() + i) as u64 >= self.limit {
                    input.pos += i + 1;
                    return Err(TraceError::new(K::TooLong, start, too_long(self.limit)));
                }
            }
            self.record.extend_from_slice(chunk);
            input.pos = input.filled;
        }
    }
}

/// The whole event object.
struct EventSeed<'n>(&'n mut Named);

impl<'de> DeserializeSeed<'de> for EventSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EventSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object {\"event name\": {fields}}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let named = self.0;
        if map.next_key_seed(TextSeed(named, Slot::Name))?.is_none() {
            return Err(de::Error::custom(
                "an empty object: an event object has one key, the event name",
            ));
        }
        map.next_value_seed(FieldsSeed(&mut *named))?;
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "a second key: an event object has one key, the event name",
            ));
        }
        Ok(())
    }
}

/// Where a text goes.
#[derive(Clone, Copy)]
enum Slot {
    Name,
    Key,
    Value,
}

/// A string (the event name or a field's key), or a scalar value.
struct TextSeed<'n>(&'n mut Named, Slot);

impl TextSeed<'_> {
    fn put(self, text: &[u8]) {
        let range = self.0.add(text);
        match self.1 {
            Slot::Name => self.0.name = range,
            Slot::Key => self.0.fields.push((range.clone(), range.end..range.end)),
            Slot::Value => {
                if let Some(last) = self.0.fields.last_mut() {
                    last.1 = range;
                }
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        match self.1 {
            Slot::Value => d.deserialize_any(self),
            _ => d.deserialize_str(self),
        }
    }
}

impl<'de> Visitor<'de> for TextSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, a number or a boolean")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.put(v.as_bytes());
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.put(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.put(v.to_string().as_bytes());
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.put(v.to_string().as_bytes());
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.put(v.to_string().as_bytes());
        Ok(())
    }
}

/// The fields: an object of named values, or an array of values.
struct FieldsSeed<'n>(&'n mut Named);

impl<'de> DeserializeSeed<'de> for FieldsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FieldsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of fields {\"name\": \"value\", ...} or an array of values")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let named = self.0;
        while map
            .next_key_seed(TextSeed(&mut *named, Slot::Key))?
            .is_some()
        {
            map.next_value_seed(TextSeed(&mut *named, Slot::Value))?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let named = self.0;
        named.positional = true;
        loop {
            let at = named.bytes.len();
            named.fields.push((at..at, at..at));
            if seq
                .next_element_seed(TextSeed(&mut *named, Slot::Value))?
                .is_none()
            {
                named.fields.pop();
                return Ok(());
            }
        }
    }
}

//! Named fields (XML and JSON events): [`FieldNames`], the parameter names
//! that a specification declares, and the mapping of an event's named fields
//! to argument positions.

use std::collections::HashMap;
use std::ops::Range;

use super::TraceErrorKind as K;
use super::diag::{parse_time, show};
use super::event::Batch;
use crate::syntax::{Def, parse};

/// The declared parameter names of events (`pred access(user, file)`): the
/// named fields of XML and JSON events are put in this order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldNames {
    map: HashMap<Vec<u8>, Vec<Vec<u8>>>,
    /// The field that holds the time stamp of a timed event (`None`: the
    /// first of [`TIME_FIELDS`] it has).
    pub(super) time: Option<Vec<u8>>,
}

/// The names of the field that holds a timed XML or JSON event's time stamp,
/// by default: the first of them that the event has.
pub const TIME_FIELDS: [&str; 3] = ["time", "timestamp", "ts"];

impl FieldNames {
    /// No declared names: fields are taken in the order written.
    pub fn new() -> Self {
        FieldNames::default()
    }

    /// Declares the parameter names of `event`.
    pub fn declare(&mut self, event: &str, params: &[&str]) {
        self.map.insert(
            event.as_bytes().to_vec(),
            params.iter().map(|p| p.as_bytes().to_vec()).collect(),
        );
    }

    /// The declarations of the specification `source` (none if it does not
    /// parse: the specification's own errors are reported elsewhere).
    pub fn from_spec(source: &str) -> Self {
        let mut names = FieldNames::new();
        if let Ok(spec) = parse(source) {
            for def in &spec.defs {
                if let Def::Events(decls) = def {
                    for d in decls {
                        let params: Vec<&str> = d.params.iter().map(|p| p.name.as_str()).collect();
                        names.declare(&d.name.name, &params);
                    }
                }
            }
        }
        names
    }

    /// The declared names of `event`, if any.
    fn get(&self, event: &[u8]) -> Option<&[Vec<u8>]> {
        self.map.get(event).map(Vec::as_slice)
    }

    /// Names the field that holds the time stamp of a timed event (`None`:
    /// the first of [`TIME_FIELDS`] that the event has).
    pub fn set_time_field(&mut self, name: Option<&str>) {
        self.time = name.map(|n| n.as_bytes().to_vec());
    }

    /// The index in `fields` of the time stamp of the event `name` (keys in
    /// `bytes`), or the error's message.
    fn time_index(
        &self,
        name: &[u8],
        bytes: &[u8],
        fields: &[(Range<usize>, Range<usize>)],
    ) -> Result<usize, String> {
        let find = |key: &[u8]| fields.iter().position(|(k, _)| &bytes[k.clone()] == key);
        match &self.time {
            Some(key) => find(key).ok_or_else(|| {
                format!(
                    "missing timestamp: event `{}` has no field `{}`, which holds the time \
                     stamp (--time-field)",
                    show(name),
                    show(key)
                )
            }),
            None => TIME_FIELDS
                .iter()
                .find_map(|key| find(key.as_bytes()))
                .ok_or_else(|| {
                    format!(
                        "missing timestamp: event `{}` has none of the fields `time`, \
                         `timestamp`, `ts` that hold the time stamp of a timed event (name \
                         another with --time-field)",
                        show(name)
                    )
                }),
        }
    }
}

/// One event with named fields, as read, before the mapping.
#[derive(Default)]
pub(super) struct Named {
    /// The bytes of the name, keys and values.
    pub(super) bytes: Vec<u8>,
    pub(super) name: Range<usize>,
    /// Each field: its key (empty for a positional one) and its value.
    pub(super) fields: Vec<(Range<usize>, Range<usize>)>,
    /// Whether the fields were given without names (a JSON array).
    pub(super) positional: bool,
}

impl Named {
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.name = 0..0;
        self.fields.clear();
        self.positional = false;
    }

    /// Appends `bytes`, and returns their range.
    pub(super) fn add(&mut self, bytes: &[u8]) -> Range<usize> {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        start..self.bytes.len()
    }

    /// Writes the event into `batch` (cleared first), its fields in the
    /// declared order; the error message if a field is missing, unknown or
    /// repeated, or the time stamp (if `timed`, `Some` of its decimals: the
    /// field `names` says holds it, found by name whatever the order; of
    /// positional fields, the last) is missing or wrong, with its kind.
    pub(super) fn emit(
        &mut self,
        names: &FieldNames,
        timed: Option<u8>,
        batch: &mut Batch,
        line: u64,
    ) -> Result<(), (K, String)> {
        let b = &self.bytes;
        let name = &b[self.name.clone()];
        if name
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        {
            return Err((K::EmptyName, "empty event name".to_owned()));
        }
        let mut time = 0;
        if let Some(decimals) = timed {
            // Named fields: the time field, by name; positional ones: the last.
            let at = if self.positional {
                self.fields.len().checked_sub(1).ok_or_else(|| {
                    format!(
                        "missing timestamp: event `{}` has no fields, but a timed trace \
                         needs the time as the last value",
                        show(name)
                    )
                })
            } else {
                names.time_index(name, b, &self.fields)
            };
            let (_, value) = self.fields.remove(at.map_err(|m| (K::MissingTime, m))?);
            let stamp = &b[value];
            time = parse_time(stamp, decimals).map_err(|m| (time_kind(stamp), m))?;
        }
        batch.clear();
        batch.begin();
        batch.extend(name);
        batch.end_field();
        match names.get(name).filter(|_| !self.positional) {
            None => {
                for (_, value) in &self.fields {
                    batch.extend(&b[value.clone()]);
                    batch.end_field();
                }
            }
            Some(params) => {
                for (i, (key, _)) in self.fields.iter().enumerate() {
                    let key = &b[key.clone()];
                    if !params.iter().any(|p| p == key) {
                        return Err((
                            K::Field,
                            format!(
                                "unknown field `{}` in event `{}`: the specification declares {}",
                                show(key),
                                show(name),
                                declared(name, params)
                            ),
                        ));
                    }
                    if self.fields[..i].iter().any(|(k, _)| &b[k.clone()] == key) {
                        return Err((
                            K::Field,
                            format!(
                                "field `{}` given twice in event `{}`",
                                show(key),
                                show(name)
                            ),
                        ));
                    }
                }
                for p in params {
                    let Some((_, value)) = self.fields.iter().find(|(k, _)| &b[k.clone()] == p)
                    else {
                        return Err((
                            K::Field,
                            format!(
                                "missing field `{}` in event `{}`: the specification declares {}",
                                show(p),
                                show(name),
                                declared(name, params)
                            ),
                        ));
                    };
                    batch.extend(&b[value.clone()]);
                    batch.end_field();
                }
            }
        }
        batch.finish(time, line);
        Ok(())
    }
}

/// `name(p1, p2)`, for messages.
fn declared(name: &[u8], params: &[Vec<u8>]) -> String {
    let params: Vec<String> = params.iter().map(|p| show(p)).collect();
    format!("`{}({})`", show(name), params.join(", "))
}

/// The kind of error of a time stamp field that [`parse_time`] refused.
pub(super) fn time_kind(stamp: &[u8]) -> K {
    if stamp.is_empty() {
        K::MissingTime
    } else {
        K::BadTime
    }
}

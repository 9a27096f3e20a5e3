//! Why the monitor refused a step ([`StepError`]).

/// Why an event was refused (see [`Monitor::step`](super::Monitor::step); a refused event changes
/// nothing). Also why a monitor could not be built (the constants of a
/// specification need more codes than [`MonitorOptions::max_code_bits`](crate::monitor::MonitorOptions::max_code_bits) hold).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cluster", derive(serde::Serialize, serde::Deserialize))]
pub enum StepError {
    /// The event has a different number of arguments than the specification uses.
    Arity {
        /// Event name.
        event: String,
        /// Arity in the specification.
        expected: usize,
        /// Arity of the event.
        found: usize,
    },
    /// The time went backwards.
    TimeBackwards {
        /// Previous event's time.
        previous: u64,
        /// This event's time.
        time: u64,
    },
    /// More distinct live values of one class than codes of the widest width.
    OutOfCodes {
        /// The property.
        property: String,
        /// The widest codes of the property, in bits.
        bits: usize,
    },
    /// A computation of a property's arithmetic or aggregation has no value
    /// at this step (division by zero, a value that is not a number) or its
    /// values ran out of codes. Unlike the other errors it is not undone:
    /// the monitor has stopped, and every later step is refused with it.
    Eval {
        /// The property.
        property: String,
        /// The subformula and what went wrong.
        message: String,
    },
}

impl StepError {
    /// Codes of `bits` bits ran out in `plan`.
    pub(crate) fn out_of_codes(plan: &crate::plan::PropPlan, bits: usize) -> StepError {
        StepError::OutOfCodes {
            property: plan.name.clone(),
            bits,
        }
    }
}

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepError::Arity {
                event,
                expected,
                found,
            } => write!(
                f,
                "event `{event}` has {found} argument{}, but the specification uses it with {expected}",
                if *found == 1 { "" } else { "s" }
            ),
            StepError::TimeBackwards { previous, time } => {
                write!(
                    f,
                    "time stamp {time} is smaller than the previous one, {previous}"
                )
            }
            StepError::OutOfCodes { property, bits } => {
                let most = (1u64 << bits) - 1;
                write!(
                    f,
                    "property `{property}` has more distinct live values than {bits}-bit codes \
                     can hold (at most {most} per class)"
                )
            }
            StepError::Eval { property, message } => {
                write!(f, "property `{property}` cannot be evaluated: {message}")
            }
        }
    }
}

impl std::error::Error for StepError {}

//! `hindsight run --timepoints`: a whole time-point as one step.

use hindsight::report::EventCounts;
use hindsight::runtime::{Monitor, StepError};
use hindsight::trace::TimePoint;

/// Steps `monitor` once with every event of `point`, counting them; the
/// properties violated at that step.
pub fn step_timepoint(
    monitor: &mut Monitor,
    point: &TimePoint<'_>,
    counts: &mut EventCounts,
) -> Result<Vec<usize>, StepError> {
    let args: Vec<Vec<&[u8]>> = point.events().map(|e| e.args().collect()).collect();
    let events: Vec<(&[u8], &[&[u8]])> = point
        .events()
        .zip(&args)
        .map(|(e, args)| (e.name, &args[..]))
        .collect();
    let violated = monitor.step_set(&events, point.time)?.to_vec();
    for (name, _) in &events {
        counts.add(name);
    }
    Ok(violated)
}

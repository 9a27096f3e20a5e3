//! The columns of a parallel run's profile: each worker's monitors, in
//! the order of the layout, every property named with its place in it
//! (`P [slice 1 of 2]`, `P [part 2]`, `P [part 1, slice 2 of 2]`; a
//! property monitored whole on one worker keeps its name, and its
//! columns are the sequential run's).

use crate::parallel::worker::Unit;
use crate::plan::slice::Parallel;
use crate::plan::{Plan, PropPlan};
use crate::profile::Columns;
use crate::runtime::{Monitor, MonitorOptions};

/// The names of the columns of `workers`' monitors (laid out for `plan`),
/// worker after worker, as the workers sample them; `source` is the
/// specification's text, for readable labels.
pub(super) fn columns(
    plan: &Plan,
    workers: &[Vec<Unit>],
    options: &MonitorOptions,
    source: &str,
) -> Vec<String> {
    let mut names = Vec::new();
    for unit in workers.iter().flatten() {
        // A monitor like the worker's, for its columns and labels.
        let Ok(monitor) = Monitor::new(unit.plan.clone(), options.clone()) else {
            continue;
        };
        let prefix = |i: usize, name: &str| {
            let part = unit
                .global
                .get(i)
                .and_then(|&g| part_of(plan, g, &unit.plan.props[i]));
            let slice = (unit.route.slices > 1)
                .then(|| format!("slice {} of {}", unit.route.slice + 1, unit.route.slices));
            let place: Vec<String> = part
                .map(|k| format!("part {k}"))
                .into_iter()
                .chain(slice)
                .collect();
            if place.is_empty() {
                name.to_string()
            } else {
                format!("{name} [{}]", place.join(", "))
            }
        };
        names.extend(Columns::of(&monitor).names(&monitor, Some(source), prefix));
    }
    names
}

/// When `prop` is a part of property `global` of `plan`: its number (from
/// 1, as `hindsight compile --explain` numbers the parts).
fn part_of(plan: &Plan, global: usize, prop: &PropPlan) -> Option<usize> {
    let Parallel::Split(parts) = plan.props.get(global)?.parallel() else {
        return None;
    };
    let nodes = format!("{:?}", prop.nodes);
    let k = parts
        .iter()
        .position(|(p, _)| format!("{:?}", p.nodes) == nodes)?;
    Some(k + 1)
}

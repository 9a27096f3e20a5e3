//! How long a segment's warm-up must be, estimated from the rates at
//! which a sample of the trace carries the values whose state a warm-up
//! must see again (see [`warm_up_events`]).

use std::sync::Arc;

use hashbrown::HashMap;

use super::warm_steps;
use crate::parallel::block::Block;
use crate::plan::{Arg, Op, Plan};

/// The chance, at most, that a warm-up of the length [`warm_up_events`]
/// gives misses a value the sample's rates say it should see.
const MISSED: f64 = 0.01;

/// The warm-up, in events, that a segment of a trace like `sample` needs
/// so that it sees again every value whose state it must know, estimated
/// from the sample. The argument positions of the state events fall into
/// *classes* ([`classes`]): positions where one variable stands in atoms
/// under one `S` or `@`, as `login`'s and `logout`'s in `[login(u),
/// logout(u))`, whose events each set that summary's state for the value
/// (seeing a user log in or out again is seeing the user again). Per
/// class, the `v` values seen at its positions in the `n` events of the
/// sample (with those it missed: [`population`]), carried `c` times in
/// all, each appear in a warm-up of `w` events but with a chance of about
/// `exp(-c w / (v n))`, and the warm-up
/// is the shortest for which these chances add up to at most [`MISSED`].
/// (The rate is pooled over the values of a class: a value seen once in
/// the sample is not taken for a rare one.) `None` when some property is
/// not tick invariant: its state may depend on every event of a value
/// (telemetry's toggles), which rates do not tell
/// ([`super::warm_up_agrees`] judges those). `u64::MAX` when no warm-up
/// within a thousand samples would do.
///
/// On the `gen_access.py` logs with 200 users who log in and out, about
/// 13,000 events; with 1,000 users, 77,000; with 5,000, 440,000; with
/// 20,000, 2,100,000.
pub fn warm_up_events(plan: &Plan, sample: &[Arc<Block>]) -> Option<u64> {
    let steps = warm_steps(plan)?;
    let class_of = classes(plan);
    // Per class: how many times each value was seen, and all of them.
    type Seen<'a> = (HashMap<&'a [u8], u64>, u64);
    let mut seen: HashMap<(u32, usize), Seen<'_>> = HashMap::new();
    let mut events = 0u64;
    for block in sample {
        for ev in &block.events {
            events += 1 + ev.repeats;
            if steps.get(ev.name as usize) == Some(&true) {
                // A repeat sees the same values again, no others.
                for (k, v) in block.args_of(ev).iter().enumerate() {
                    let key = (ev.name, k);
                    let class = class_of.get(&key).copied().unwrap_or(key);
                    let (values, times) = seen.entry(class).or_default();
                    *values.entry(v).or_default() += 1;
                    *times += 1;
                }
            }
        }
    }
    let n = events.max(1) as f64;
    // Per class: its values, and the rate of each per event.
    let rates: Vec<(f64, f64)> = (seen.values())
        .map(|(values, times)| {
            let v = population(values.values());
            (v, *times as f64 / v / n)
        })
        .collect();
    let missed = |w: f64| -> f64 { rates.iter().map(|&(v, rate)| v * (-rate * w).exp()).sum() };
    if missed(0.0) <= MISSED {
        return Some(0);
    }
    let (mut lo, mut hi) = (0.0, n);
    while missed(hi) > MISSED {
        if hi > 1000.0 * n {
            return Some(u64::MAX);
        }
        (lo, hi) = (hi, 2.0 * hi);
    }
    // To within a hundredth of the sample.
    while hi - lo > n / 100.0 {
        let mid = (lo + hi) / 2.0;
        if missed(mid) > MISSED {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(hi.ceil() as u64)
}

/// How many values a class has, estimated from how many times the sample
/// saw each of its values (`seen`): those seen, and as many more as the
/// values seen once and twice suggest were missed (Chao's estimate:
/// `f1 (f1 - 1) / (2 (f2 + 1))` with `f1` values seen once and `f2`
/// twice). With
/// 20,000 users of which a sample of 131,072 `gen_access.py` events sees
/// about 12,500, the rates of the values seen alone would take the others
/// for never seen again, and the warm-up for shorter than it is.
fn population<'a>(seen: impl Iterator<Item = &'a u64>) -> f64 {
    let (mut v, mut f1, mut f2) = (0.0, 0.0, 0.0);
    for &c in seen {
        v += 1.0;
        match c {
            1 => f1 += 1.0,
            2 => f2 += 1.0,
            _ => {}
        }
    }
    v + f1 * (f1 - 1.0f64).max(0.0) / (2.0 * (f2 + 1.0))
}

/// The classes of the argument positions `(event index in the plan's
/// events, position)` of the state events of `plan`: per `S` (or `@`) of
/// a property and per variable, the positions where the atoms under it
/// in the same step have that variable are one class, and classes that
/// share a position are one. Each position is mapped to its class's
/// least position; a position in no class (a constant's) is not mapped.
pub fn classes(plan: &Plan) -> HashMap<(u32, usize), (u32, usize)> {
    let index: HashMap<&str, u32> = (plan.events.keys().enumerate())
        .map(|(i, e)| (e.as_str(), i as u32))
        .collect();
    let mut parent: HashMap<(u32, usize), (u32, usize)> = HashMap::new();
    fn root(parent: &HashMap<(u32, usize), (u32, usize)>, mut k: (u32, usize)) -> (u32, usize) {
        while let Some(&p) = parent.get(&k).filter(|&&p| p != k) {
            k = p;
        }
        k
    }
    for p in &plan.props {
        let roots = (p.nodes.iter().enumerate()).filter_map(|(n, node)| match node.op {
            Op::Since(..) | Op::SinceTimed(..) | Op::Zince(..) => Some(n),
            Op::Prev(a) => Some(a),
            _ => None,
        });
        for start in roots {
            // Per variable, the positions where it stands under `start`.
            let mut by_var: HashMap<_, Vec<(u32, usize)>> = HashMap::new();
            let mut todo = vec![start];
            let mut seen = vec![false; p.nodes.len()];
            while let Some(n) = todo.pop() {
                if std::mem::replace(&mut seen[n], true) {
                    continue;
                }
                match &p.nodes[n].op {
                    Op::Atom { event, args } => {
                        let Some(&e) = index.get(event.as_str()) else {
                            continue;
                        };
                        for (k, arg) in args.iter().enumerate() {
                            if let Arg::Var(x) = arg {
                                by_var.entry(*x).or_default().push((e, k));
                            }
                        }
                    }
                    Op::Prev(a) => todo.push(*a),
                    op => todo.extend(op.same_step_kids().iter()),
                }
            }
            for keys in by_var.values() {
                for &k in keys {
                    parent.entry(k).or_insert(k);
                }
                for &k in &keys[1..] {
                    let (a, b) = (root(&parent, keys[0]), root(&parent, k));
                    // The least position is the class's root.
                    parent.insert(a.max(b), a.min(b));
                }
            }
        }
    }
    let keys: Vec<_> = parent.keys().copied().collect();
    keys.into_iter().map(|k| (k, root(&parent, k))).collect()
}

#[cfg(test)]
mod tests {
    use super::population;

    #[test]
    fn values_seen_once_suggest_values_not_seen() {
        // Every value seen often: the sample saw them all.
        assert_eq!(population([4, 7, 3].iter()), 3.0);
        // 5 values, 3 seen once and 1 twice: 3 * 2 / (2 * 2) more.
        assert_eq!(population([1, 1, 1, 2, 5].iter()), 6.5);
        // One value seen once is no evidence of others.
        assert_eq!(population([1].iter()), 1.0);
        // 100 values each seen once: many more (100 * 99 / 2).
        assert_eq!(population([1; 100].iter()), 5050.0);
    }
}

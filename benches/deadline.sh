#!/usr/bin/env bash
# Per-command deadline benchmark: 1 million timestamped events, ~1000 live commands.
# usage: benches/deadline.sh [EVENTS] [LIVE]
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-1000000}
live=${2:-1000}
dir=target/bench-data
mkdir -p "$dir"
trace="$dir/deadline-$events-$live.timed.csv"
[ -f "$trace" ] || python3 benches/gen_deadline.py "$events" "$live" > "$trace"
spec="$dir/deadline.qtl"
echo 'prop deadline : Forall m . complete(m) -> P[<=3] dispatch(m)' > "$spec"
cargo build --release --quiet
/usr/bin/time -f "wall %e s, peak RSS %M KB" target/release/hindsight run --quiet "$spec" "$trace" || true
target/release/hindsight run --output json "$spec" "$trace" | tail -n 1

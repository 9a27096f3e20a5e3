#!/usr/bin/env bash
# Table 1 of the rules paper on this machine, with ratios to
# ../shared/bench/REFERENCE.md. Builds the release binary first.
#   benches/table1.sh                 # all rows, default build
#   benches/table1.sh --only T1,T4    # some traces
#   benches/table1.sh --biodivine     # also with the biodivine-lib-bdd package, side by side
set -euo pipefail
cd "$(dirname "$0")/.."
bins=(--bin target/release/hindsight)
args=()
for a in "$@"; do
  if [ "$a" = --biodivine ]; then
    args+=(--bdd shared --bdd biodivine)
  else
    args+=("$a")
  fi
done
cargo build --release --quiet
exec python3 benches/table1.py "${bins[@]}" "${args[@]}"

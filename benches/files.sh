#!/usr/bin/env bash
# Value-code garbage collection: open and close N distinct file names with at
# most 100 open at a time, the file at position N/2 closed twice. Prints the
# one violation (at event N + 103: N/2 + 101 opens and N/2 + 1 closes precede
# the second close), the collections, wall time and peak RSS for each N.
# usage: benches/files.sh [N ...]   (default: 1000000 10000000)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
spec=$(mktemp --suffix=.qtl)
echo 'prop file : Forall f . close(f) -> @ [open(f), close(f))' > "$spec"
for n in "${@:-1000000 10000000}"; do
  for m in $n; do
    echo "== $m files"
    python3 benches/gen_files.py "$m" 100 $((m / 2)) |
      /usr/bin/time -f "wall %e s, peak RSS %M KB" target/release/hindsight run "$spec" |
      grep -E "violated|garbage|STATUS" || true
  done
done
rm -f "$spec"

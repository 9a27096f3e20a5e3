#!/usr/bin/env bash
# Instruction counts (callgrind, repeatable on a busy machine) of
# `hindsight run --jobs 1` against `hindsight.run(..., jobs=1)` on each FMSD
# 100k log; the Python figure has the cost of starting Python and importing
# hindsight taken off (measured the same way). Needs valgrind and the package
# installed in the Python given as $PYTHON (default python3).
#   benches/python_callgrind.sh [FMSD-NAME ...]
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
bin=target/release/hindsight
fmsd=../shared/bench/fmsd
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(access fifo file locks-basic locks-cycles locks-datarace)
count() {
  local out
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
  rm -f "$out"
}
base=$(count "$py" -c "import hindsight")
printf '%-16s %14s %14s %7s\n' log cli python ratio
for n in "${names[@]}"; do
  spec=$fmsd/$n/spec.qtl
  log=$fmsd/$n/log-100k.csv
  cli=$(count "$bin" run --quiet --jobs 1 "$spec" "$log")
  pyc=$(count "$py" -c "import hindsight; hindsight.run('$spec', '$log', jobs=1)")
  net=$((pyc - base))
  printf '%-16s %14d %14d %7s\n' "$n" "$cli" "$net" "$(awk -v a="$net" -v b="$cli" 'BEGIN {printf "%.3f", a / b}')"
done

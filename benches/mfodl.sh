#!/usr/bin/env bash
# MonPoly's benchmarks on the shared 100k-time-point logs
# (../shared/bench/mfodl), each a violation pattern:
#   resp    req(r) AND NOT EVENTUALLY[0,5] resp(r)          (future operators)
#   logins  (c <- CNT ip; u ONCE[0,100] fail(u, ip)) AND c > 3  (aggregation)
# For each: checks that the satisfactions are MonPoly's own (X-100k.expected)
# byte for byte, then prints the best whole-process wall time of N runs
# (printing the satisfactions to /dev/null, as MonPoly's runs do), the
# user CPU of that run and the peak RSS (/usr/bin/time). Builds the release
# binary first.
#   benches/mfodl.sh                       # both, 5 runs each
#   benches/mfodl.sh resp --runs 10
#   benches/mfodl.sh logins --instructions # also count instructions (valgrind)
#   benches/mfodl.sh --monpoly PATH        # also time MonPoly, side by side
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5 instructions=0 monpoly="" names=()
while [ $# -gt 0 ]; do
  case "$1" in
    resp|logins) names+=("$1"); shift ;;
    --runs) runs="$2"; shift 2 ;;
    --instructions) instructions=1; shift ;;
    --monpoly) monpoly="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
cargo build --release --quiet
bin="$PWD/target/release/hindsight"
dir="$PWD/../shared/bench/mfodl"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
[ ${#names[@]} -gt 0 ] || names=(resp logins)
cd "$dir"
for name in "${names[@]}"; do
echo "== $name"
"$bin" run $name.mfotl --sig $name.sig $name-100k.log > "$tmp/out" || true
if grep '^@' "$tmp/out" | cmp -s - $name-100k.expected; then
  echo "satisfactions: identical to MonPoly's ($(wc -l < $name-100k.expected) lines)"
else
  echo "satisfactions: DIFFERENT from MonPoly's" >&2
  exit 1
fi
# best of N: wall seconds, user seconds, peak RSS (KB)
best() {
  local best_wall="" best_line=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %M" -o "$tmp/time" "$@" > /dev/null 2>&1 || true
    read -r wall user rss < <(tail -n 1 "$tmp/time")
    if [ -z "$best_wall" ] || awk "BEGIN{exit !($wall < $best_wall)}"; then
      best_wall=$wall best_line="$wall s wall, $user s user, $((rss / 1024)) MB peak RSS"
    fi
  done
  echo "$best_line"
}
echo "hindsight (best of $runs): $(best "$bin" run $name.mfotl --sig $name.sig $name-100k.log)"
if [ -n "$monpoly" ]; then
  echo "MonPoly   (best of $runs): $(best "$monpoly" -sig $name.sig -formula $name.mfotl -log $name-100k.log)"
fi
if [ "$instructions" = 1 ]; then
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
    "$bin" run $name.mfotl --sig $name.sig $name-100k.log > /dev/null 2> "$tmp/vg" || true
  echo "instructions (every thread): $(grep -o 'refs: *[0-9,]*' "$tmp/vg" | tr -d ' ' | cut -d: -f2)"
fi
done

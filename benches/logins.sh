#!/usr/bin/env bash
# The aggregation benchmark (issue 38): MonPoly's `logins` pattern,
#   (c <- CNT ip; u ONCE[0,100] fail(u, ip)) AND c > 3
# on the shared 100k-time-point log (../shared/bench/mfodl). Checks that the
# satisfactions are MonPoly's own (logins-100k.expected) byte for byte, then
# prints the best whole-process wall time of N runs, the user CPU of that
# run and the peak RSS (/usr/bin/time -v). Builds the release binary first.
#   benches/logins.sh                      # 5 runs
#   benches/logins.sh --runs 10
#   benches/logins.sh --instructions       # also count instructions (valgrind)
#   benches/logins.sh --monpoly PATH       # also time MonPoly, side by side
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5 instructions=0 monpoly=""
while [ $# -gt 0 ]; do
  case "$1" in
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
cd "$dir"
"$bin" run logins.mfotl --sig logins.sig logins-100k.log > "$tmp/out" || true
if grep '^@' "$tmp/out" | cmp -s - logins-100k.expected; then
  echo "satisfactions: identical to MonPoly's ($(wc -l < logins-100k.expected) lines)"
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
echo "hindsight (best of $runs): $(best "$bin" run --quiet logins.mfotl --sig logins.sig logins-100k.log)"
if [ -n "$monpoly" ]; then
  echo "MonPoly   (best of $runs): $(best "$monpoly" -sig logins.sig -formula logins.mfotl -log logins-100k.log)"
fi
if [ "$instructions" = 1 ]; then
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
    "$bin" run --quiet logins.mfotl --sig logins.sig logins-100k.log > /dev/null 2> "$tmp/vg" || true
  echo "instructions: $(grep -o 'refs: *[0-9,]*' "$tmp/vg" | tr -d ' ' | cut -d: -f2)"
fi

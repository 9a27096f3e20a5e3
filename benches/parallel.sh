#!/bin/sh
# Parallel runs: `--jobs 2` against `--jobs 1` (user CPU and wall time of the
# whole process, and a check that both print the same output), then the
# scale simulation (benches/parallel_sim.rs) at 16 and 64 slices.
#
# usage: benches/parallel.sh [EVENTS]   (default 10000000 for the generated log)
# Needs ../shared/bench/fmsd (the FMSD logs). Scratch files go to
# target/parallel-bench.
set -eu
cd "$(dirname "$0")/.."
events=${1:-10000000}
out=target/parallel-bench
mkdir -p "$out"
cargo build --release --quiet
cargo build --release --quiet --bench parallel_sim
bin=target/release/hindsight
sim=$(ls -t target/release/deps/parallel_sim-* | grep -v '\.d$' | head -1)
log="$out/access-$events.csv"
[ -s "$log" ] || python3 benches/gen_access_log.py "$events" > "$log"
cat > "$out/allowed.qtl" <<'QTL'
pred login(u), logout(u), grant(u, r), revoke(u, r), access(u, r)
prop accessAllowed :
  Forall u . Forall r . access(u, r) ->
    [login(u), logout(u)) & [grant(u, r), revoke(u, r))
QTL
fmsd=../shared/bench/fmsd

# Comparable output: without the time taken and the garbage collections.
strip() { grep -v -e '^events processed' -e '^garbage collections' "$1"; }

measure() { # name spec trace
    for j in 1 2; do
        /usr/bin/time -f "%U %e %M" -o "$out/time-$j" \
            "$bin" run --jobs "$j" "$2" "$3" > "$out/out-$j" || true
    done
    strip "$out/out-1" > "$out/out-1.stripped"
    strip "$out/out-2" > "$out/out-2.stripped"
    if cmp -s "$out/out-1.stripped" "$out/out-2.stripped"; then same=same; else same=DIFFERENT; fi
    # (the first line may be time's note of a non-zero exit status)
    read u1 w1 m1 <<EOT
$(tail -n 1 "$out/time-1")
EOT
    read u2 w2 m2 <<EOT
$(tail -n 1 "$out/time-2")
EOT
    printf '| %s | %s s / %s s | %s s / %s s | %.2f | %s |\n' "$1" "$u1" "$w1" "$u2" "$w2" \
        "$(echo "$w1 / $w2" | bc -l)" "$same"
}

echo "| workload | --jobs 1: user / wall | --jobs 2: user / wall | wall speed-up | output |"
echo "|---|---|---|---|---|"
measure "FMSD access 100k (sliced on user)" $fmsd/access/spec.qtl $fmsd/access/log-100k.csv
measure "FMSD locks-basic 100k (sliced on l)" $fmsd/locks-basic/spec.qtl $fmsd/locks-basic/log-100k.csv
measure "FMSD fifo 100k (not sliced)" $fmsd/fifo/spec.qtl $fmsd/fifo/log-100k.csv
measure "accessAllowed $events (sliced on u)" "$out/allowed.qtl" "$log"
echo
"$sim" "$out/allowed.qtl" "$log" 16 64

#!/bin/sh
# Parallel runs: `--jobs 2` against `--jobs 1` (user CPU and wall time of the
# whole process, best of RUNS, and a check that both print the same output)
# on the six FMSD properties, the FMSD access property on the access-control
# generator's log (benches/gen_access.py) and accessAllowed on
# benches/gen_access_log.py's, then the scale simulation
# (benches/parallel_sim.rs) at 16 and 64 slices.
#
# usage: benches/parallel.sh [EVENTS]   (default 10000000 for the generated logs)
#        RUNS=5 benches/parallel.sh     (default 3)
#        SIM=0 benches/parallel.sh      (without the scale simulation)
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
runs=${RUNS:-3}
log="$out/access-$events.csv"
[ -s "$log" ] || python3 benches/gen_access_log.py "$events" > "$log"
files="$out/files-$events.csv"
[ -s "$files" ] || python3 benches/gen_access.py "$events" --users 1000 --files 200 > "$files"
cat > "$out/allowed.qtl" <<'QTL'
pred login(u), logout(u), grant(u, r), revoke(u, r), access(u, r)
prop accessAllowed :
  Forall u . Forall r . access(u, r) ->
    [login(u), logout(u)) & [grant(u, r), revoke(u, r))
QTL
fmsd=../shared/bench/fmsd

# Comparable output: without the time taken and the garbage collections.
strip() { grep -v -e '^events processed' -e '^garbage collections' "$1"; }

measure() { # name spec trace: the run with the best wall time of $runs
    for j in 1 2; do
        : > "$out/time-$j"
        for _ in $(seq "$runs"); do
            /usr/bin/time -f "%U %e %M" -o "$out/t" \
                "$bin" run --jobs "$j" "$2" "$3" > "$out/out-$j" || true
            tail -n 1 "$out/t" >> "$out/time-$j"
        done
        sort -k2 -g "$out/time-$j" | head -n 1 > "$out/best-$j"
    done
    strip "$out/out-1" > "$out/out-1.stripped"
    strip "$out/out-2" > "$out/out-2.stripped"
    if cmp -s "$out/out-1.stripped" "$out/out-2.stripped"; then same=same; else same=DIFFERENT; fi
    # (the first line may be time's note of a non-zero exit status)
    read u1 w1 m1 < "$out/best-1"
    read u2 w2 m2 < "$out/best-2"
    printf '| %s | %s s / %s s, %s MB | %s s / %s s, %s MB | %.2f | %s |\n' "$1" \
        "$u1" "$w1" "$((m1 / 1024))" "$u2" "$w2" "$((m2 / 1024))" \
        "$(echo "$w1 / $w2" | bc -l)" "$same"
}

echo "| workload | --jobs 1: user / wall, RSS | --jobs 2: user / wall, RSS | wall speed-up | output |"
echo "|---|---|---|---|---|"
for p in access file fifo locks-basic locks-cycles locks-datarace; do
    measure "FMSD $p 100k" $fmsd/$p/spec.qtl $fmsd/$p/log-100k.csv
done
measure "FMSD access on gen_access.py $events" $fmsd/access/spec.qtl "$files"
measure "accessAllowed on gen_access_log.py $events" "$out/allowed.qtl" "$log"
# SIM=0 skips the scale simulation (several minutes on 10M events).
if [ "${SIM:-1}" != 0 ]; then
    echo
    "$sim" "$out/allowed.qtl" "$log" 16 64
    "$sim" "$fmsd/access/spec.qtl" "$files" 16 64
fi

#!/bin/sh
# Wall times of traces read from a pipe, --jobs 1 against --jobs 2 (best of
# $RUNS, whole process, the writer included): the FMSD access and file logs
# through `cat`, and gen_access_log.py's log of $EVENTS events through
# `cat` and through `gzip -dc` (a compressed log, decompressed by the
# writer), with the summary of each run compared but for the time taken
# and the garbage collections (docs/PARALLEL.md, standard input).
#
# usage: benches/pipes.sh [OUT_DIR]   (RUNS=5 EVENTS=1000000 by default)
set -eu
out=${1:-target/pipes}
mkdir -p "$out"
cargo build --release --quiet
bin=target/release/hindsight
runs=${RUNS:-5}
events=${EVENTS:-1000000}
fmsd=../shared/bench/fmsd
log="$out/access-$events.csv"
[ -s "$log" ] || python3 benches/gen_access_log.py "$events" > "$log"
[ -s "$log.gz" ] || gzip -c "$log" > "$log.gz"
cat > "$out/allowed.qtl" <<'QTL'
pred login(u), logout(u), grant(u, r), revoke(u, r), access(u, r)
prop accessAllowed :
  Forall u . Forall r . access(u, r) ->
    [login(u), logout(u)) & [grant(u, r), revoke(u, r))
QTL

strip() { grep -v -e '^events processed' -e '^garbage collections' "$1"; }

measure() { # name writer spec input: the best wall time of $runs per job count
    for j in 1 2; do
        : > "$out/time-$j"
        for _ in $(seq "$runs"); do
            start=$(date +%s.%N)
            "$2" "$4" | "$bin" run --jobs "$j" "$3" - > "$out/out-$j" || true
            end=$(date +%s.%N)
            echo "$end - $start" | bc -l >> "$out/time-$j"
        done
        sort -g "$out/time-$j" | head -n 1 > "$out/best-$j"
    done
    strip "$out/out-1" > "$out/out-1.stripped"
    strip "$out/out-2" > "$out/out-2.stripped"
    if cmp -s "$out/out-1.stripped" "$out/out-2.stripped"; then same=same; else same=DIFFERENT; fi
    w1=$(cat "$out/best-1")
    w2=$(cat "$out/best-2")
    printf '| %s | %.3f s | %.3f s | %.2f | %s |\n' "$1" "$w1" "$w2" \
        "$(echo "$w1 / $w2" | bc -l)" "$same"
}

gunzip_c() { gzip -dc "$1"; }

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| piped workload | --jobs 1 | --jobs 2 | speed-up | output |"
echo "|---|---:|---:|---:|---|"
measure "FMSD access 100k, cat" cat $fmsd/access/spec.qtl $fmsd/access/log-100k.csv
measure "FMSD file 100k, cat" cat $fmsd/file/spec.qtl $fmsd/file/log-100k.csv
measure "accessAllowed $events, cat" cat "$out/allowed.qtl" "$log"
measure "accessAllowed $events, gzip -dc" gunzip_c "$out/allowed.qtl" "$log.gz"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Trace formats on the FMSD logs of ../shared/bench/fmsd:
# 1. each MonPoly log (10k) gives exactly the verdicts of its CSV twin;
# 2. the throughput of each reader alone (examples/read_trace.rs: read and
#    count the events, no monitoring) on the 100k access log written in every
#    format, plain and gzip- and zstd-compressed. Times are user CPU seconds
#    (the best of 3 runs of 20 readings), as the machine may be shared.
#    MB/s are of the decompressed text.
# usage: benches/formats.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fmsd=../shared/bench/fmsd
cargo build --release --quiet --example read_trace
bin=target/release/hindsight
echo "== MonPoly logs against their CSV twins (violating events)"
for d in access file fifo locks-basic locks-cycles locks-datarace; do
  csv=$($bin run "$fmsd/$d/spec.qtl" "$fmsd/$d/log-10k.csv" | grep "violated at" | sed 's/ at time [0-9]*//' || true)
  mp=$($bin run "$fmsd/$d/spec.qtl" "$fmsd/$d/log-10k.monpoly" | grep "violated at" | sed 's/ at time [0-9]*//' || true)
  if [ "$csv" == "$mp" ]; then same=same; else same=DIFFERENT; fi
  echo "$d: $same: $(echo "$mp" | grep -o 'event [0-9]*' | tr '\n' ' ')"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$fmsd/access/log-100k.csv
cp "$src" "$tmp/access.csv"
cp "$fmsd/access/log-100k.monpoly" "$tmp/access.monpoly"
for f in crv xml json; do
  python3 benches/convert_trace.py $f < "$src" > "$tmp/access.$f"
done
reps=20
echo "== Readers on the 100k access log (user CPU time per reading: best of 3 runs of $reps readings)"
for f in csv crv xml json monpoly; do
  for c in none gz zst; do
    file=$tmp/access.$f
    case $c in
      gz) gzip -c "$file" > "$file.gz"; file=$file.gz ;;
      zst) zstd -q -c "$file" > "$file.zst"; file=$file.zst ;;
    esac
    best=
    for _ in 1 2 3; do
      t=$( { /usr/bin/time -f '%U' target/release/examples/read_trace "$file" auto $reps > "$tmp/out"; } 2>&1 )
      if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    done
    size=$(stat -c %s "$tmp/access.$f")
    events=$(cut -d' ' -f1 "$tmp/out")
    awk -v f="$f" -v c="$c" -v t="$best" -v s="$size" -v n="$events" \
      -v r="$reps" 'BEGIN { t /= r; printf "%-8s %-4s %8d bytes %7d events %7.4f s user  %6.0f MB/s  %5.0f ns/event\n", f, c, s, n, t, (t > 0 ? s / t / 1e6 : 0), (t > 0 ? t * 1e9 / n : 0) }'
  done
done

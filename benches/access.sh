#!/usr/bin/env bash
# Flat per-event cost: the FMSD access property on generated access-control
# logs (benches/gen_access.py: 1,000 users, 200 files) of 1M and 10M events.
# Prints per log: events, wall and user seconds, peak RSS, microseconds of
# user CPU per event, and the growth of user time per growth of events
# (the issue's target: at most 1.1x per 1x, and a flat RSS).
#   benches/access.sh                 # 1M and 10M events
#   benches/access.sh 100000 1000000  # other sizes
#   KEEP=/tmp/logs benches/access.sh  # keep (and reuse) the generated logs
#   JOBS=2 benches/access.sh          # run --jobs 2 (default 1: the sequential engine)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
dir=${KEEP:-$(mktemp -d)}
mkdir -p "$dir"
spec="$dir/access.qtl"
cat > "$spec" <<'QTL'
prop access :
  Forall user . Forall file .
    access(user,file) ->
      [login(user),logout(user))
        &
      [open(file),close(file))
QTL
printf '%12s %8s %8s %8s %10s %10s %s\n' events wall_s user_s rss_MB us/event growth violation
prev_n=; prev_u=
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
for n in "${sizes[@]}"; do
  log="$dir/access-$n.csv"
  [ -s "$log" ] || python3 benches/gen_access.py "$n" --users 1000 --files 200 > "$log"
  out=$(/usr/bin/time -f 'TIME %e %U %M' target/release/hindsight run --jobs "${JOBS:-1}" "$spec" "$log" 2>&1 || true)
  read -r wall user rss <<< "$(grep '^TIME' <<< "$out" | cut -d' ' -f2-)"
  viol=$(grep -o 'violated at event [0-9]*' <<< "$out" | head -1 | grep -o '[0-9]*$' || echo none)
  growth=-
  if [ -n "$prev_n" ]; then
    growth=$(python3 -c "print(f'{($user / $prev_u) / ($n / $prev_n):.2f}x')")
  fi
  printf '%12s %8s %8s %8.1f %10.3f %10s %s\n' "$n" "$wall" "$user" \
    "$(python3 -c "print($rss / 1024)")" "$(python3 -c "print($user * 1e6 / $n)")" "$growth" "$viol"
  prev_n=$n; prev_u=$user
done
[ -n "${KEEP:-}" ] || rm -rf "$dir"

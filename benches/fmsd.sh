#!/usr/bin/env bash
# The six FMSD properties on the shared 100k logs (../shared/bench/fmsd), with
# seconds, user CPU, peak RSS, violations and the ratio to the reference's
# analysis time. Builds the release binary first.
#   benches/fmsd.sh                      # all six, best of 3 runs each
#   benches/fmsd.sh --log log-10k.csv    # the 10k logs
#   benches/fmsd.sh --only access,file --runs 5
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 benches/fmsd.py "$@"

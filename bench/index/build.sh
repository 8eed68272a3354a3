#!/usr/bin/env bash
# Builds a synthetic library of PAPERS papers x CHUNKS chunks of 768
# dimensions (recorded as the local embedder's, so that `papers` can
# search and ingest into it) the way repeated ingests would: PutBatch of 20
# papers, a Refresh of the search index every REFRESH papers (its merges
# included). Reports wall and CPU time, peak RSS, the load average before
# and after (the machine is shared), and the sizes on disk.
#
#   bash bench/index/build.sh DIR PAPERS [CHUNKS] [REFRESH]
#   bash bench/index/build.sh /tmp/lib1m 20000      # 1M chunks
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$1 papers=$2 chunks=${3:-50} refresh=${4:-1000}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/synth" ./bench/synth
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 /usr/bin/time -f "build: %e s wall, %U s user, %S s sys, peak RSS %M KB" \
  "$bin/synth" -dir "$dir" -papers "$papers" -chunks "$chunks" -dims 768 \
  -embedder local/hash-768-v1 -batch 20 -refresh "$refresh"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
du -sh "$dir/library.db" "$dir/index"
echo "segments: $(ls "$dir/index"/*.seg | wc -l)"

#!/usr/bin/env bash
# Times the search of a library with this tree's code against a baseline
# revision's, interleaved in the same minutes (the machine is shared: runs
# apart in time are not comparable):
#
#   cold search   `papers search --mode M -k 10` in a fresh process, the
#                 page cache warm, N runs of each side alternating (bm25,
#                 dense, hybrid)
#   warm          coldsearch -warm 30 (text: BM25 with feedback, top 300;
#                 dense: top 10 of a random query vector; both: the two, at
#                 once from 0a9bcc3 on, one after the other before), 3 runs
#                 a side
#
# Both sides search the same files: code without sign codes ignores the
# .bits files (and this code writes them on its first open if missing).
#
#   bash bench/index/compare.sh DIR BASE-REV [N]
#   bash bench/index/compare.sh /tmp/lib1m 15c0f8a 11
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$1 base=$2 N=${3:-11}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/new" "$tmp/base"
git archive "$base" | tar -x -C "$tmp/src"
(cd "$tmp/src" && go build -o "$tmp/base/papers" ./cmd/papers && go build -o "$tmp/base/coldsearch" ./store/internal/coldsearch)
go build -o "$tmp/new/papers" ./cmd/papers
go build -o "$tmp/new/coldsearch" ./store/internal/coldsearch
export PAPERS_HOME=$dir
Q="reinforcement learning agent reward planning"
. bench/index/timing.sh

echo "library $dir: $(du -sh "$dir/index" | cut -f1) index, $(ls "$dir/index"/*.seg | wc -l) segments; baseline $base"; load
"$tmp/new/papers" search --mode dense -k 1 "$Q" >/dev/null # writes missing sign codes once
for m in bm25 dense hybrid; do
  : > "$tmp/b.$m"; : > "$tmp/n.$m"
  for _ in $(seq "$N"); do
    timed "$tmp/base/papers" search --mode $m -k 10 "$Q" >> "$tmp/b.$m"
    timed "$tmp/new/papers" search --mode $m -k 10 "$Q" >> "$tmp/n.$m"
  done
  stats "cold $m, baseline" < "$tmp/b.$m"
  stats "cold $m, this tree" < "$tmp/n.$m"
done
load
for m in text dense both; do
  for _ in 1 2 3; do
    echo "baseline:  $("$tmp/base/coldsearch" -dir "$dir" -mode $m -warm 30)"
    echo "this tree: $("$tmp/new/coldsearch" -dir "$dir" -mode $m -warm 30)"
  done
done
load

#!/usr/bin/env bash
# Times the search index of a library (made by bench/index/build.sh, or
# any library of the local embedder) through whole commands, N runs each:
#
#   cold search     `papers search --mode M` in a fresh process, the page
#                   cache warm (commands run one after another)
#   cold cache      the same after dropping the library's files from the
#                   page cache (bench/index/evict): a first search after
#                   a reboot
#   warm            searches in one process after the first (coldsearch
#                   -warm): text = BM25 with feedback, top 300; dense =
#                   the sign-code (from 250k chunks) or int8 scan and the
#                   exact re-score, top 10
#   ingest one      `papers ingest --jsonl` of one SciFact abstract (a new
#                   id each run), and coldsearch -put: the Refresh alone
#   rm one          `papers rm` of the paper just ingested, and
#                   coldsearch -rm
#   rebuild         a search with the index directory deleted: the index
#                   built from nothing (REBUILD=0 skips it)
#
# Peak RSS is /usr/bin/time's %M: it counts the mapped index pages a
# command touched (page cache, shared), not only what it allocated.
#
#   bash bench/index/run.sh DIR [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$1 N=${2:-11}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/papers" ./cmd/papers
go build -o "$bin/coldsearch" ./store/internal/coldsearch
go build -o "$bin/evict" ./bench/index/evict
export PAPERS_HOME=$dir
Q="reinforcement learning agent reward planning"
. bench/index/timing.sh

echo "library $dir: $(du -sh "$dir/library.db" | cut -f1) database, $(du -sh "$dir/index" | cut -f1) index, $(ls "$dir/index"/*.seg | wc -l) segments"; load
for m in bm25 hybrid; do
  for _ in $(seq "$N"); do timed "$bin/papers" search --mode $m -k 10 "$Q"; done | stats "cold search --mode $m"
done
for m in bm25 hybrid; do
  for _ in $(seq 3); do "$bin/evict" "$dir" 2>/dev/null; timed "$bin/papers" search --mode $m -k 10 "$Q"; done | stats "cold cache --mode $m"
done
load
for m in text dense both; do "$bin/coldsearch" -dir "$dir" -mode $m -warm 30; done
load
one=$(mktemp) ins=$(mktemp) rms=$(mktemp)
for i in $(seq 3); do
  id="bench-$(date +%s%N)"
  head -1 ../shared/data/scifact/corpus.jsonl | sed "s/\"_id\": \"[^\"]*\"/\"_id\": \"$id\"/" > "$one"
  timed "$bin/papers" ingest --jsonl "$one" >> "$ins"
  timed "$bin/papers" rm "$id" >> "$rms"
done
stats "ingest one abstract" < "$ins"
stats "rm one paper" < "$rms"
rm -f "$one" "$ins" "$rms"
for i in $(seq 3); do
  out=$("$bin/coldsearch" -dir "$dir" -put); echo "$out"
  "$bin/coldsearch" -dir "$dir" -rm "$(echo "$out" | sed 's/.*id=\([^ ]*\).*/\1/')"
done
load
if [ "${REBUILD:-1}" = 1 ]; then
  rm -rf "$dir/index"
  timed "$bin/papers" search --mode bm25 -k 10 "$Q" | stats "rebuild (search with no index)"
  load
fi

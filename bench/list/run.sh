#!/usr/bin/env bash
# Times `papers list` (process start to last line printed) on a library of
# the 5,183 SciFact abstracts and on synthetic libraries of 10k and 100k
# chunks, N runs each; prints min / p50 / max wall ms and peak RSS.
#
#   bash bench/list/run.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/papers" ./cmd/papers
go build -o "$work/synth" ./bench/synth

PAPERS_HOME="$work/scifact" "$work/papers" ingest --jsonl ../shared/data/scifact/corpus.jsonl >/dev/null 2>&1
"$work/synth" -dir "$work/syn10k" -papers 200 -chunks 50 -dims 384
"$work/synth" -dir "$work/syn100k" -papers 2000 -chunks 50 -dims 384

timeit() { # label home [list flags...]
  local label=$1 home=$2 t
  shift 2
  local times=()
  for _ in $(seq "$N"); do
    t=$( { /usr/bin/time -f '%e %M' env PAPERS_HOME="$home" "$work/papers" list "$@" >/dev/null; } 2>&1 | tail -1)
    times+=("$t")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v n="$N" '
    { s[NR]=$1*1000; m[NR]=$2 } END {
      rss=0; for (i=1;i<=NR;i++) if (m[i]>rss) rss=m[i];
      printf "%-28s min %4.0f ms  p50 %4.0f ms  max %4.0f ms  peak RSS %.0f MB  (%d runs)\n", label, s[1], s[int((NR+1)/2)], s[NR], rss/1024, n }'
}
rows=$(PAPERS_HOME="$work/scifact" "$work/papers" list | wc -l)
echo "papers list, $rows rows from SciFact; synthetic: 200 and 2000 papers"
timeit "scifact (5,183 papers)" "$work/scifact"
timeit "synthetic 10k chunks" "$work/syn10k"
timeit "synthetic 100k chunks" "$work/syn100k"
timeit "100k chunks, --limit 20" "$work/syn100k" --limit 20

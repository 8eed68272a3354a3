#!/usr/bin/env bash
# Times `papers related ID` cold (process start to last line printed: the
# library opened, its paper vectors read from their sidecar, the chromem-go
# collection built, one query, the records read) on a synthetic library of
# N papers (5 chunks of 768 dimensions each), against `papers show ID` in
# the same run (the cost of starting and opening the library), R runs each;
# prints min / p50 / max wall ms and peak RSS. The first related run, which
# computes the paper vectors and writes their sidecar, is timed apart.
#
#   bash bench/related/run.sh [N] [R]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-10000}
R=${2:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/papers" ./cmd/papers
go build -o "$work/synth" ./bench/synth
"$work/synth" -dir "$work/lib" -papers "$N" -chunks 5 -dims 768 -embedder local/hash-768-v1 -batch 200 2>/dev/null
id=$(printf 'syn-%06d' $((N / 2)))

timeit() { # label command...
  local label=$1 t
  shift
  local times=()
  for _ in $(seq "$R"); do
    t=$( { /usr/bin/time -f '%e %M %U %S' env PAPERS_HOME="$work/lib" "$@" >/dev/null; } 2>&1 | tail -1)
    times+=("$t")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v n="$R" '
    { s[NR]=$1*1000; m[NR]=$2; c[NR]=($3+$4)*1000 } END {
      rss=0; for (i=1;i<=NR;i++) if (m[i]>rss) rss=m[i];
      for (i=2;i<=NR;i++) { v=c[i]; j=i-1; while (j>0 && c[j]>v) { c[j+1]=c[j]; j-- } c[j+1]=v }
      printf "%-32s wall min %4.0f p50 %4.0f max %4.0f ms; CPU p50 %4.0f ms; peak RSS %.0f MB (%d runs)\n", label, s[1], s[int((NR+1)/2)], s[NR], c[int((NR+1)/2)], rss/1024, n }'
}
echo "synthetic library: $N papers x 5 chunks, 768 dims; load average $(cut -d' ' -f1-3 /proc/loadavg)"
{ /usr/bin/time -f '%e %U %S %M' env PAPERS_HOME="$work/lib" "$work/papers" related "$id" >/dev/null; } 2>&1 | tail -1 |
  awk '{ printf "first papers related (paper vectors computed, sidecar written): %.0f ms, CPU %.0f ms, peak RSS %.0f MB\n", $1*1000, ($2+$3)*1000, $4/1024 }'
timeit "papers show ID (baseline)" "$work/papers" show "$id"
timeit "papers related ID" "$work/papers" related "$id"
timeit "papers related ID --json -k 20" "$work/papers" related "$id" --json -k 20
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Times shell completion as the shell runs it: a fresh `papers __complete`
# process (start, open the library, read by prefix, print) on a library of
# 10,000 papers (bench/synth, one chunk each), N runs each, with the CPU
# of each run; prints min / p50 / max wall ms and the p50 CPU.
#
#   bash bench/complete/run.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/papers" ./cmd/papers
go build -o "$work/synth" ./bench/synth
"$work/synth" -dir "$work/lib" -papers 10000 -chunks 1 -dims 8 -batch 500 >/dev/null 2>&1
PAPERS_HOME="$work/lib" "$work/papers" tag syn-000001 reading-group >/dev/null
PAPERS_HOME="$work/lib" "$work/papers" topic add agents --query abs:agent >/dev/null 2>&1

timeit() { # label args...
  local label=$1
  shift
  local rows=()
  for _ in $(seq "$N"); do
    /usr/bin/time -o "$work/t" -f '%e %U %S' env PAPERS_HOME="$work/lib" "$work/papers" __complete "$@" >/dev/null 2>&1
    rows+=("$(tail -1 "$work/t")")
    # (wall, user and system seconds, at /usr/bin/time's 10 ms resolution)
  done
  local wall cpu
  wall=$(printf '%s\n' "${rows[@]}" | awk '{ print $1*1000 }' | sort -n | tr '\n' ' ')
  cpu=$(printf '%s\n' "${rows[@]}" | awk '{ print ($2+$3)*1000 }' | sort -n | tr '\n' ' ')
  awk -v label="$label" -v w="$wall" -v c="$cpu" 'BEGIN {
    n=split(w, W, " "); split(c, C, " ")
    printf "%-36s wall min %3.0f  p50 %3.0f  max %3.0f ms, CPU p50 %3.0f ms  (%d runs)\n", label, W[1], W[int((n+1)/2)], W[n], C[int((n+1)/2)], n }'
}
echo "papers __complete on 10,000 papers; load: $(cut -d' ' -f1-3 /proc/loadavg)"
timeit "an id: show syn-0042<TAB>" show syn-0042
timeit "ids: show <TAB> (200 of 10,000)" show ''
timeit "a topic: update <TAB>" update ''
timeit "a tag: list --tag <TAB>" list --tag ''
timeit "a flag value: search --mode <TAB>" search --mode ''
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

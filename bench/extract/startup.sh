#!/usr/bin/env bash
# Start-up: the wall time of `papers extract` on a one-page PDF of one line
# (hostile/page_tree_loop.pdf), against pdftotext on the same file: least,
# quartile and median of N runs each, interleaved.
#
#   bench/extract/startup.sh [N]        # default 100
#   GODEBUG=inittrace=1 papers extract FILE 2>&1 >/dev/null   # what package init costs
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-100}
bin=$(mktemp -d)/papers
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/papers
f=../shared/data/pdfs/hostile/page_tree_loop.pdf
ours=() theirs=()
for ((i = 0; i < n; i++)); do
	t0=$(date +%s%N); "$bin" extract "$f" >/dev/null 2>&1 || true
	t1=$(date +%s%N); pdftotext -q "$f" - >/dev/null 2>&1 || true
	t2=$(date +%s%N)
	ours+=($(((t1 - t0) / 1000))) theirs+=($(((t2 - t1) / 1000)))
done
stats() { sort -n | awk '{a[NR]=$1} END {printf "least %.1f ms, quartile %.1f ms, median %.1f ms\n", a[1]/1000, a[int(NR/4)+1]/1000, a[int(NR/2)+1]/1000}'; }
printf 'papers extract: '; printf '%s\n' "${ours[@]}" | stats
printf 'pdftotext:      '; printf '%s\n' "${theirs[@]}" | stats

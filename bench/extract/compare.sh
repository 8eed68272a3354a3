#!/usr/bin/env bash
# Times `papers extract` against poppler's `pdftotext` on the same PDFs in one
# run (interleaved rounds, so load from other processes hits both alike), and
# reports peak RSS per file for papers extract.
#
#   bench/extract/compare.sh [ROUNDS] [DIR...]
#
# DIR defaults to the 8 shared papers; PDFs are found recursively, so
# `bench/extract/compare.sh 3 ../shared/data/pdfs/peer/pdfs` times the peer
# set. Files either tool fails on are timed all the same.
#
# Needs pdftotext (apt-get install poppler-utils) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
shift || true
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(../shared/data/pdfs/papers)
bin=$(mktemp -d)/papers
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/papers
command -v pdftotext >/dev/null || { echo "pdftotext not found: apt-get install poppler-utils" >&2; exit 1; }
mapfile -t files < <(find "${dirs[@]}" -name '*.pdf' | sort)

# Each run is capped at LIMIT seconds (pdftotext spends hours on
# hostile/xobject_fanout.pdf); a capped run counts LIMIT.
limit=${LIMIT:-30}
now() { date +%s.%N; }
ours=0 theirs=0
for ((r = 1; r <= rounds; r++)); do
	t0=$(now)
	for f in "${files[@]}"; do timeout "$limit" "$bin" extract "$f" >/dev/null 2>&1 || true; done
	t1=$(now)
	for f in "${files[@]}"; do timeout "$limit" pdftotext "$f" - >/dev/null 2>&1 || true; done
	t2=$(now)
	a=$(echo "$t1 - $t0" | bc) b=$(echo "$t2 - $t1" | bc)
	printf 'round %d: papers extract %.3fs  pdftotext %.3fs\n' "$r" "$a" "$b"
	ours=$(echo "$ours + $a" | bc) theirs=$(echo "$theirs + $b" | bc)
done
printf 'total over %d rounds of %d files: papers extract %.3fs, pdftotext %.3fs, ratio (ours/pdftotext) %.2f\n' \
	"$rounds" "${#files[@]}" "$ours" "$theirs" "$(echo "$ours / $theirs" | bc -l)"

[ ${#files[@]} -le 20 ] || { echo "(peak RSS per file: see bench/extract/sweep.sh for sets this large)"; exit 0; }
echo "peak RSS per file (KB), papers extract vs pdftotext:"
for f in "${files[@]}"; do
	/usr/bin/time -f %M -o "$bin.rss" "$bin" extract "$f" >/dev/null 2>&1 || true
	a=$(tail -1 "$bin.rss")
	/usr/bin/time -f %M -o "$bin.rss" pdftotext "$f" - >/dev/null 2>&1 || true
	b=$(tail -1 "$bin.rss")
	printf '  %-48s %8s %8s\n' "$(basename "$f")" "$a" "$b"
done

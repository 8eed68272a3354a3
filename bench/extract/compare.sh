#!/usr/bin/env bash
# Times `papers extract` against poppler's `pdftotext` on the same PDFs in one
# run (interleaved rounds, so load from other processes hits both alike), and
# reports peak RSS per file for papers extract.
#
#   bench/extract/compare.sh [ROUNDS] [DIR...]
#
# DIR (default: the 8 shared papers) is searched recursively (the peer set
# keeps its PDFs in one folder per suite):
# bench/extract/compare.sh 1 ../shared/data/pdfs/peer/pdfs ../shared/data/pdfs/hostile
#
# RSS=0 skips the per-file memory table; LIMIT (default 30s) caps each
# command (pdftotext takes minutes on pdf.js's bomb_giant.pdf and over 16
# minutes on hostile/xobject_fanout.pdf); a capped run counts LIMIT.
# Needs pdftotext (apt-get install poppler-utils) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
limit=${LIMIT:-30s}
shift || true
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(../shared/data/pdfs/papers)
bin=$(mktemp -d)/papers
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/papers
command -v pdftotext >/dev/null || { echo "pdftotext not found: apt-get install poppler-utils" >&2; exit 1; }
mapfile -t files < <(find "${dirs[@]}" -name '*.pdf' | sort)

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

[ "${RSS:-1}" = 0 ] && exit 0 # RSS=0: timings only
echo "peak RSS per file (KB), papers extract vs pdftotext:"
for f in "${files[@]}"; do
	/usr/bin/time -f %M -o "$bin.rss" "$bin" extract "$f" >/dev/null 2>&1 || true
	a=$(tail -1 "$bin.rss")
	/usr/bin/time -f %M -o "$bin.rss" pdftotext "$f" - >/dev/null 2>&1 || true
	b=$(tail -1 "$bin.rss")
	printf '  %-48s %8s %8s\n' "$(basename "$f")" "$a" "$b"
done

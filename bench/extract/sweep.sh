#!/usr/bin/env bash
# Runs `papers extract` once on every PDF of the peer and hostile sets, one
# process per file (so a crash or OOM loses only that file), with a time
# limit and a virtual-memory ceiling, and writes one TSV row per file:
#
#   file  exit  seconds  maxrss_kb  our_chars  ref_chars  word_f1  bigram_f1  first_stderr_line
#
# exit is the process status (124 = killed by the time limit, >128 = signal,
# 2 with "fatal error" = a Go runtime crash). ref_chars and the scores use
# pdftotext's text committed beside the peer files. Then it prints a summary.
#
#   bench/extract/sweep.sh [OUT.tsv] [TIMEOUT_S]
#
# Needs GNU time (/usr/bin/time). Run it under `nice`: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/sweep.tsv}
limit=${2:-150}
data=../shared/data/pdfs
[ -d "$data/peer/pdfs" ] || { echo "test data missing: $data/peer (see ../shared/data/README.md)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/papers" ./cmd/papers
go build -o "$tmp/scoretext" ./bench/extract/scoretext

printf 'file\texit\tseconds\tmaxrss_kb\tour_chars\tref_chars\tword_f1\tbigram_f1\tstderr\n' >"$out"
run() { # file ref
	local f=$1 ref=$2 st=0
	# 8 GB of address space: a file that asks for more fails fast instead
	# of taking the machine's memory (the 2^32-entry xref asks for 137 GB).
	( ulimit -v 8000000; exec timeout "$limit" /usr/bin/time -f '%e %M' -o "$tmp/time" \
		"$tmp/papers" extract "$f" >"$tmp/out" 2>"$tmp/err" ) || st=$?
	local secs rss
	read -r secs rss < <(tail -1 "$tmp/time" 2>/dev/null || echo "$limit 0") || true
	[ "$st" = 124 ] && { secs=$limit; rss=0; }
	local chars refchars=0 f1=- bf1=-
	chars=$(wc -m <"$tmp/out")
	if [ -n "$ref" ] && [ -f "$ref" ]; then
		refchars=$(wc -m <"$ref")
		read -r f1 bf1 < <("$tmp/scoretext" "$tmp/out" "$ref")
	fi
	local msg
	msg=$(grep -m1 -E 'error|fatal|panic' "$tmp/err" | tr '\t' ' ' | cut -c1-200 || true)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${f#$data/}" "$st" "$secs" "$rss" "$chars" "$refchars" "$f1" "$bf1" "$msg" >>"$out"
}
for f in "$data"/peer/pdfs/*/*.pdf; do
	rel=${f#$data/peer/pdfs/}
	run "$f" "$data/peer/reference-text/${rel%.pdf}.txt"
done
for f in "$data"/hostile/*.pdf; do run "$f" ""; done

awk -F'\t' 'NR > 1 {
	n++
	if ($2 == 124) hang++
	else if ($2 > 1 || $9 ~ /fatal error|goroutine /) crash++
	else if ($2 == 1) { fail++; if ($6 >= 500) failref++ }
	if ($4 > maxrss) { maxrss = $4; maxf = $1 }
	if ($3 > maxs) { maxs = $3; slowf = $1 }
	t += $3
}
END {
	printf "%d files: %d crashed, %d hit the %ss limit, %d exit 1 (%d of them where pdftotext has >= 500 chars)\n", n, crash, hang, "'"$limit"'", fail, failref
	printf "max RSS %.0f MB (%s), slowest %.2fs (%s), total %.1fs\n", maxrss / 1024, maxf, maxs, slowf, t
}' "$out"

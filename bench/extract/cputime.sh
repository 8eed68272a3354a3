#!/usr/bin/env bash
# CPU time (user+sys) of `papers extract` against pdftotext over the same
# PDFs, one process per file, the tools interleaved in every round, so that
# load from other processes on the machine costs both alike:
#
#   bench/extract/cputime.sh [ROUNDS] [DIR...]         # default: 3 rounds of the 8 shared papers
#   OTHER=/tmp/papers-main bench/extract/cputime.sh 3 /tmp/rp/T/pdf /tmp/rp/H/pdf
#
# OTHER names a second papers binary to time as well (another build, e.g.
# main's). The binary is built with CGO_ENABLED=0, as released. Needs
# pdftotext (apt-get install poppler-utils) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
shift || true
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(../shared/data/pdfs/papers)
bin=$(mktemp -d)/papers
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -o "$bin" ./cmd/papers
command -v pdftotext >/dev/null || { echo "pdftotext not found: apt-get install poppler-utils" >&2; exit 1; }
mapfile -t files < <(find -L "${dirs[@]}" -name '*.pdf' | sort)
tools=("$bin extract" "pdftotext -q")
[ -n "${OTHER:-}" ] && tools+=("$OTHER extract")
label() { case "$1" in "$bin extract") echo "papers (this tree)" ;; "pdftotext -q") echo pdftotext ;; *) echo "${1%% *}" ;; esac; }
declare -A total
for ((r = 1; r <= rounds; r++)); do
	line="round $r:"
	for tool in "${tools[@]}"; do
		out=""
		[ "$tool" = "pdftotext -q" ] && out="-"
		t=$({ /usr/bin/time -f '%U %S' bash -c 'for f in "$@"; do '"$tool"' "$f" '"$out"' >/dev/null 2>&1 || true; done' _ "${files[@]}"; } 2>&1 | tail -1 | awk '{printf "%.2f", $1+$2}')
		total[$tool]=$(echo "${total[$tool]:-0} + $t" | bc)
		line="$line  $(label "$tool"): ${t}s"
	done
	echo "$line"
done
echo "CPU over $rounds rounds of ${#files[@]} files:"
for tool in "${tools[@]}"; do
	printf '  %-30s %6.2fs  (%.2f of pdftotext)\n' "$(label "$tool")" "${total[$tool]}" "$(echo "${total[$tool]} / ${total[pdftotext -q]}" | bc -l)"
done

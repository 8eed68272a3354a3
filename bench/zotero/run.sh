#!/usr/bin/env bash
# Times `papers ingest --zotero` on a synthetic Zotero library (the real
# Zotero 7 schema of shared/data/zotero, N items of ten types, PDFs of 5
# shared papers attached, 10 attachments missing, 4 items in the trash):
# the first import into an empty library, and the re-run (nothing changed).
# The baseline, in the same run, is `papers ingest DIR` of the same 5 PDFs
# alone (what PDF extraction costs). R runs each; prints min / p50 / max
# wall s, user+sys CPU s and peak RSS.
#
#   bash bench/zotero/run.sh [ITEMS] [R]
set -euo pipefail
cd "$(dirname "$0")/../.."
ITEMS=${1:-200}
R=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/papers" ./cmd/papers
go build -o "$work/synth" ./bench/zotero
P=../shared/data/pdfs/papers
pdfs="$P/toolformer_2302.04761v1.pdf,$P/arxiv_1111.2011v2.pdf,$P/pasa_2501.10120.pdf,$P/adarefiner_naacl2024findings.pdf,$P/papermage_emnlp2023demo.pdf"
"$work/synth" -src ../shared/data/zotero/yi1699-zotero7 -dir "$work/zotero" -items "$ITEMS" -pdfs "$pdfs"
mkdir -p "$work/pdfs"
cp ${pdfs//,/ } "$work/pdfs/"
export PAPERS_ARXIV_API_URL=http://127.0.0.1:1/api/query PAPERS_ARXIV_DELAY=0 # offline: nothing is fetched

timeit() { # label reuse(0|1) args...
  local label=$1 reuse=$2
  shift 2
  local rows=()
  for i in $(seq "$R"); do
    home="$work/home-$label-$i"
    if [ "$reuse" = 1 ]; then
      PAPERS_HOME="$home" "$work/papers" "$@" >/dev/null 2>&1
    fi
    /usr/bin/time -o "$work/t" -f '%e %U %S %M' env PAPERS_HOME="$home" "$work/papers" "$@" >/dev/null 2>&1
    rows+=("$(tail -1 "$work/t")")
  done
  printf '%s\n' "${rows[@]}" | sort -n | awk -v label="$label" -v n="$R" '
    { w[NR]=$1; c[NR]=$2+$3; m[NR]=$4 } END {
      rss=0; cpu=0; for (i=1;i<=NR;i++) { if (m[i]>rss) rss=m[i]; if (c[i]>cpu) cpu=c[i] }
      printf "%-34s min %5.2f s  p50 %5.2f s  max %5.2f s  cpu <= %5.2f s  peak RSS %4.0f MB  (%d runs)\n", label, w[1], w[int((NR+1)/2)], w[NR], cpu, rss/1024, n }'
}
echo "papers ingest --zotero: $ITEMS synthetic items, 5 PDFs (63 pages), 10 missing; load $(cut -d' ' -f1-3 /proc/loadavg)"
timeit "baseline: the 5 PDFs as a folder" 0 ingest "$work/pdfs"
timeit "zotero, first import" 0 ingest --zotero "$work/zotero"
timeit "zotero, re-run (unchanged)" 1 ingest --zotero "$work/zotero"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

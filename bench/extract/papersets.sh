#!/usr/bin/env bash
# Makes the two sets of research papers the PDF layer is tuned and checked
# on (issue 26), as folders of links to the PDFs with pdftotext's text of
# each beside them, for bench/extract/sweep:
#
#   bench/extract/papersets.sh [OUT]        # default /tmp/rp
#   go run ./bench/extract/sweep -pdfs /tmp/rp/T/pdf -refs /tmp/rp/T/ref -labels ''
#
# T (22, tuned on): the 8 shared papers; the peer set's TraceMonkey papers,
# humanities review and the two reproducers of issue 26 (CERMINE's Bigtable,
# papermage's EACL paper); two of the awkward set; six of the Zotero
# library's papers. H (11, held out: looked at only as a whole, never file by
# file while tuning): the rest of the research papers under ../shared/data.
# Needs pdftotext (poppler-utils) for the Zotero papers' texts.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/rp}
D=$(cd ../shared/data && pwd)
P=$D/pdfs
Z=$D/zotero/yi1699-zotero7/storage
rm -rf "$out/T" "$out/H"
mkdir -p "$out"/{T,H}/{pdf,ref}
peer() { n=$(basename "$2"); ln -sf "$P/peer/pdfs/$2.pdf" "$out/$1/pdf/$n.pdf"; ln -sf "$P/peer/reference-text/$2.txt" "$out/$1/ref/$n.txt"; }
awk_() { ln -sf "$P/awkward/$2.pdf" "$out/$1/pdf/"; ln -sf "$P/reference-text/$2.txt" "$out/$1/ref/"; }
zot() { f=$(ls "$Z/$2"/*.pdf); ln -sf "$f" "$out/$1/pdf/$2.pdf"; pdftotext "$f" "$out/$1/ref/$2.txt" 2>/dev/null; }
for f in pdfjs/bug1885505 pdfjs/bug1992868 pdfjs/issue18911 pymupdf/test_2861 cermine/cermine-web__src__test__resources__pdf__test1 papermage/2023.eacl-main.121; do peer T $f; done
awk_ T french_paper_olap_pdftex
awk_ T reflexion_2303.11366v4_ios_resaved
for f in "$P"/papers/*.pdf; do n=$(basename "$f" .pdf); ln -sf "$f" "$out/T/pdf/"; ln -sf "$P/reference-text/$n.txt" "$out/T/ref/"; done
for k in 4LLXMVZB 8GEPCWSV H8IZDJEM I4W6ZZ9W YIHBNPGU ZWX7T4QC; do zot T $k; done
for f in pdfjs/issue13201 pdfplumber/issue-982-example samplefiles/pdflatex-4-pages unstructured/copy-protected; do peer H $f; done
awk_ H layoutparser_2p_copy_protected_aes
awk_ H autogen_excerpt_markitdown_test
for k in 7ZR5RBQZ 8UTQ2DC7 ES6V7V4U TQJUQX4V Z236VBWT; do zot H $k; done
echo "$(ls "$out/T/pdf" | wc -l) tuning papers in $out/T, $(ls "$out/H/pdf" | wc -l) held-out papers in $out/H"

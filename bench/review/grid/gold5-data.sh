#!/usr/bin/env bash
# Lays out the papers of the fifth review grid (gold5.jsonl, see the README)
# in a folder the grid command reads as its -data:
#
#   bench/review/grid/gold5-data.sh [OUT]     # default /tmp/review-grid5
#   go run ./bench/review/grid -data /tmp/review-grid5 -gold bench/review/grid/gold5.jsonl
#
# Its two PDFs are the papers that Debian's R packages r-cran-seriation and
# r-cran-clue ship as vignettes (GPL, like the packages): "Getting Things in
# Order" (seriation, first published in JSS) and "A CLUE for CLUster
# Ensembles" (first published in JSS), fetched with apt-get download at a
# pinned version (run `apt-get update` once first) and checked against the
# sha256 the gold was written from (so that pages stay right). None of the
# Go modules' and npm packages' test PDFs that were searched holds a
# research paper grids 1-4 do not already use (pdfcpu's others are slides,
# books, standards and manuals). The ten QASPER dev papers come from
# ../shared/data/qasper, linked in as OUT/qasper.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-/tmp/review-grid5}
D=$(cd ../shared/data && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pkgs=(
	"r-cran-seriation=1.4.1-1 seriation/doc/seriation.pdf"
	"r-cran-clue=0.3-64-1 clue/doc/clue.pdf"
)
mkdir -p "$out/r-cran"
for line in "${pkgs[@]}"; do
	read -r pkg files <<<"$line"
	# (as root apt-get warns that it downloads unsandboxed: kept in apt.log)
	(cd "$work" && apt-get download -q "$pkg" >"$work/apt.log" 2>&1) || {
		cat "$work/apt.log" >&2
		echo "apt-get download $pkg failed: run 'apt-get update' first (the pinned version must still be in the archive)" >&2
		exit 1
	}
	dpkg-deb -x "$work"/"${pkg%%=*}"_*.deb "$work/x"
	for f in $files; do
		mkdir -p "$out/r-cran/$(dirname "$f")"
		cp "$work/x/usr/lib/R/site-library/$f" "$out/r-cran/$f"
	done
done
ln -sfn "$D/qasper" "$out/qasper"

(cd "$out" && sha256sum -c --quiet) <<'SUMS'
756b375ad97a7ea0df3e4036755c9d40c207fb77685357648091387a7634b8d0  r-cran/seriation/doc/seriation.pdf
6ecf7357012a9d2c880dfabb52f88b48c525bbc8566d5fb550bc0607ddfee4df  r-cran/clue/doc/clue.pdf
SUMS
echo "grid 5's papers are in $out"

#!/usr/bin/env bash
# Lays out the papers of the third review grid (gold3.jsonl, see the README)
# in a folder the grid command reads as its -data:
#
#   bench/review/grid/gold3-data.sh [OUT]     # default /tmp/review-grid3
#   go run ./bench/review/grid -data /tmp/review-grid3 -gold bench/review/grid/gold3.jsonl
#
# Its eight PDFs are published papers that Debian's R packages ship as their
# vignettes (../shared/data holds no English research paper that grids 1 and
# 2 or the answer model's fit do not already use). The script downloads the
# pinned packages with apt-get (run `apt-get update` once first), takes the
# PDFs out without installing anything, and checks them against the sha256
# the gold was written from, so that pages stay right. The four QASPER dev
# papers come from ../shared/data/qasper, linked in as OUT/qasper.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-/tmp/review-grid3}
D=$(cd ../shared/data && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# package=version and the PDFs the grid takes from it
pkgs=(
	"r-cran-e1071=1.7-13-1 e1071/doc/svmdoc.pdf"
	"r-cran-flexmix=2.3-18-1 flexmix/doc/bootstrapping.pdf"
	"r-cran-vcd=1:1.4-11-1 vcd/doc/residual-shadings.pdf"
	"r-cran-rcpp=1.0.10-1 Rcpp/doc/Rcpp-introduction.pdf"
	"r-cran-coin=1.4-2-1+b1 coin/doc/LegoCondInf.pdf coin/doc/MAXtest.pdf"
	"r-cran-party=1.3-11-1 party/doc/MOB.pdf"
	"r-cran-kernlab=0.9-32-1 kernlab/doc/kernlab.pdf"
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

(cd "$out/r-cran" && sha256sum -c --quiet) <<'EOF'
be8a045b09f32471e0495f5796a5b696b27707dfa73a3611f9e42918e6a51f53  e1071/doc/svmdoc.pdf
c63f37afdc705f11ab06495ba0f9bbadc41d804c4b95e252f4aa03d799926387  flexmix/doc/bootstrapping.pdf
936f618b11c4bb4948246079649df8a6786a9146721f70784e9b5c154fbd9051  vcd/doc/residual-shadings.pdf
9f391d7ad2446bf813e22d7e6e976be6a529e9ee920a287153af15b1e025f1e9  Rcpp/doc/Rcpp-introduction.pdf
6aa3d5fb8b5b99f373e80d48c75629e7c9e10060d895334a2889f6f76c1d2048  coin/doc/LegoCondInf.pdf
72fa46702db8e213526f050aef50fb36c57ee2d84c065976a22fb80352e17cde  coin/doc/MAXtest.pdf
e513d3a843555becac92adb7ee39d49cc24f0fdc8cc1a0a1b5ebef5f6dc7c6de  party/doc/MOB.pdf
68c3c050db63954debebe74971f8d62844d505f19b3f384f945cf3d41262cbd7  kernlab/doc/kernlab.pdf
EOF
echo "grid 3's papers are in $out"

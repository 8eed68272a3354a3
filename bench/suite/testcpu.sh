#!/usr/bin/env bash
# testcpu.sh: the CPU time of each test of one package run alone, under
# test.sh's race run (-race and its gcflags): user and system CPU of the
# test binary and the processes it waited for, and its wall time. It finds
# which tests to cut where bench/suite/cputime.sh gives one package's total.
#
#   bench/suite/testcpu.sh PACKAGE [TEST...]
#
# Without TESTs: every top-level test of PACKAGE. A TEST may name one
# subtest (TestScripts/ingest__local: one testscript). The build is not
# timed.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: bench/suite/testcpu.sh PACKAGE [TEST...]" >&2; exit 2; }
rel=${1#./}
shift
out=bench/suite/out
mkdir -p "$out/bin"
name=$(echo "$rel" | tr / _)
go test -race -gcflags='modernc.org/...=-d=checkptr=0' -gcflags='modernc.org/sqlite/lib=-race=false' -c -o "$out/bin/$name.test" "./$rel"
bin=$(realpath "$out/bin/$name.test")
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <("$bin" -test.list '.*' | grep -E '^(Test|Fuzz|Example)')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0
printf '%-60s %8s %8s %8s\n' test user_s sys_s wall_s
for t in "${tests[@]}"; do
	# ^A$/^B$: the test (and subtest) of that exact name
	pattern=$(echo "$t" | sed -E 's#([^/]+)#^\1$#g')
	( cd "$rel" && /usr/bin/time -f '%U %S %e' -o "$tmp/time" "$bin" -test.run "$pattern" -test.count=1 >"$tmp/log" 2>&1 ) || { echo "FAIL $t:"; tail -n 20 "$tmp/log"; }
	read -r u s e <<<"$(tail -n 1 "$tmp/time")" || true
	printf '%-60s %8s %8s %8s\n' "$t" "${u:-?}" "${s:-?}" "${e:-?}"
	total=$(awk -v t="$total" -v u="${u:-0}" -v s="${s:-0}" 'BEGIN { print t + u + s }')
done
echo "total CPU (user+sys) $total s; load average $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# peercover.sh: checks that the peer files ingest/pdf's TestPeerReadable
# reads under the race detector (peerUnderRace) keep covered every
# statement of ingest/pdf that the whole peer set covers, the package's
# other tests included; prints the greedy choice of files that would.
#
#   bench/suite/peercover.sh
#
# Statement coverage without -race (-coverpkg=./ingest/pdf/...): the other
# tests once, then each peer file alone (about a minute).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -cover -coverpkg=./ingest/pdf/... -o "$tmp/pdf.test" ./ingest/pdf
cd ingest/pdf
"$tmp/pdf.test" -test.skip '^TestPeerReadable$' -test.coverprofile "$tmp/base.cov" >/dev/null
PAPERS_FULL_TESTS=1 "$tmp/pdf.test" -test.run '^TestPeerReadable$' -test.v |
	sed -nE 's/^    --- (PASS|FAIL|SKIP): TestPeerReadable\/(\S+) .*/\2/p' >"$tmp/files"
i=0
while read -r f; do
	i=$((i + 1))
	pat="^TestPeerReadable\$/$(printf '%s' "$f" | sed -E 's/[]+*?(){}|.[]/\\&/g' | sed -E 's#([^/]+)#^\1$#g')"
	PAPERS_FULL_TESTS=1 "$tmp/pdf.test" -test.run "$pat" -test.coverprofile "$tmp/f$i.cov" >/dev/null || echo "FAIL $f"
	printf '%s %s\n' "$i" "$f" >>"$tmp/index"
done <"$tmp/files"
race=$(sed -n '/^var peerUnderRace = \[\]string{/,/^}/p' robust_test.go | grep -o '"[^"]*\.pdf"' | tr -d '"' | tr '\n' ' ')
python3 - "$tmp" $race <<'PY'
import sys
tmp, race = sys.argv[1], sys.argv[2:]
def blocks(path):
    hit, size = set(), {}
    for l in open(path):
        if l.startswith('mode:'):
            continue
        k, n, c = l.rsplit(' ', 2)
        size[k] = int(n)
        if int(c) > 0:
            hit.add(k)
    return hit, size
base, size = blocks(f'{tmp}/base.cov')
files = {f: blocks(f'{tmp}/f{i}.cov')[0] for i, f in (l.split(' ', 1) for l in open(f'{tmp}/index').read().splitlines())}
stm = lambda s: sum(size[k] for k in s)
need = set().union(*files.values()) - base
sub = set().union(*(files[f] for f in race))
print(f'statements {stm(size)}; covered by all tests {stm(base | need)}; by the peer set only {stm(need)}')
print(f'peerUnderRace ({len(race)} files) leaves uncovered: {stm(need - sub)}')
got, pick = set(), []
while True:
    f = max(files, key=lambda f: stm((files[f] & need) - got))
    gain = stm((files[f] & need) - got)
    if gain == 0:
        break
    pick.append(f'{f} (+{gain})')
    got |= files[f] & need
print('greedy cover:', ', '.join(pick))
PY

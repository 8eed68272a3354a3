#!/usr/bin/env bash
# test.sh: the tests, as CI runs them (.ci/run). Arguments go to both go
# test runs (-run, -count, -v ...).
#
# Every package's tests run once. Those of the packages listed in race=( )
# run under the race detector: their own code is concurrent (goroutines,
# channels, sync, atomics, code run on another's goroutine; the rule and
# its check: TestRacePackagesListed in internal/testmain). The others run
# without it, built as papers ships (CGO_ENABLED=0), which also builds
# the static papers binary cmd/papers' tests run. Their code runs only on
# its caller's goroutine: the race detector would find nothing of theirs
# to compare, and runs them 2-10 times slower. (cmd/papers' tests run
# papers as processes; the code those run is in the packages below.)
set -euo pipefail
cd "$(dirname "$0")"
# the compiler and the tests collect garbage a quarter as often
# (internal/testmain.GCPercent): 12% less CPU compiling
export GOGC="${GOGC:-400}"
race=(
	./ask
	./ask/rank
	./browse
	./cmd
	./cost
	./embed
	./ingest
	./ingest/arxiv
	./ingest/arxiv/arxivtest
	./ingest/crossref
	./ingest/pdf
	./ingest/pdf/syntax
	./ingest/pdfproc
	./internal/lazyre
	./internal/netlog
	./internal/openaicompat
	./internal/pgtest
	./internal/retry
	./internal/textkit
	./library
	./llm
	./llm/llmtest
	./mcpserver
	./pgstore
	./prompts
	./related
	./retrieve
	./review
	./store
	./store/fts
	./store/index
	./topic
)
plain=$(go list ./... | grep -vxF "$(go list "${race[@]}")")
# both at once: the two builds share nothing, and the plain run's longest
# package (cmd/papers) mostly waits on the papers processes it starts
# shellcheck disable=SC2086 # one import path a word
CGO_ENABLED=0 go test -p 4 -vet=off "$@" $plain &
plainrun=$!
status=0
# -vet=off: .ci/run runs all of go vet first. The -gcflags turn off the
# race detector's pointer checks inside modernc.org's SQLite and C library
# (C translated to Go) and leave SQLite's engine (modernc.org/sqlite/lib)
# uninstrumented: neither checks any of our code (our calls into SQLite,
# its driver, its C library and the locks and atomics it synchronizes with
# stay instrumented), and together they made every SQLite call some
# tenfold slower. PAPERS_FULL_TESTS=1 makes the race run check the whole
# of the data sets it otherwise takes a slice of.
go test -race -p 4 -vet=off -gcflags='modernc.org/...=-d=checkptr=0' -gcflags='modernc.org/sqlite/lib=-race=false' "$@" "${race[@]}" || status=$?
wait "$plainrun" || status=$?
exit "$status"

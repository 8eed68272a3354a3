#!/usr/bin/env bash
# Times papers review, offline, 6 generic columns: a cold run (every cell
# computed) and a cached re-run, on
#   - the topic corpus: 30 papers held as title and abstract;
#   - 30 full-text papers: the first 30 of QASPER dev (corpus format, headings);
#   - the 8 real PDFs of shared/data/pdfs/papers.
# Prints wall time, user+sys CPU and peak RSS per run (GNU time).
# Usage: bash bench/review/run.sh [RUNS]   (from the repository root)
set -euo pipefail
runs=${1:-3}
data=../shared/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/papers" ./cmd/papers
export PAPERS_HOME="$work/lib"
"$work/papers" ingest --jsonl "$data/topic/rl-for-llm-agents.jsonl" >/dev/null 2>&1
"$work/papers" ingest "$data"/pdfs/papers/*.pdf >/dev/null 2>&1
{ zcat "$data/qasper/dev/corpus.jsonl.gz" || true; } | head -30 > "$work/qasper30.jsonl"
"$work/papers" ingest --jsonl "$work/qasper30.jsonl" >/dev/null 2>&1
cols=(--column 'What problem does it address?' --column 'What method does it propose?'
      --column 'How much better is it?' --column 'Which datasets or benchmarks are used?'
      --column 'What are the limitations?' --column 'Which baselines are compared?')
qasper=$(grep -o '"_id": "[^"]*"' "$work/qasper30.jsonl" | cut -d'"' -f4)
pdfs=$("$work/papers" list | awk -F'\t' '$4 > 0 && $1 !~ /^qasper:/ {print $1}')
measure() { # name, args...
	local name=$1; shift
	for i in $(seq "$runs"); do
		/usr/bin/time -f "$name cold wall %e s cpu %U+%S s rss %M KB" "$work/papers" review "$@" "${cols[@]}" --recompute >/dev/null
		/usr/bin/time -f "$name cached wall %e s cpu %U+%S s rss %M KB" "$work/papers" review "$@" "${cols[@]}" >/dev/null
	done
}
uptime
# shellcheck disable=SC2046
measure "topic 30x6" $(seq -f 'topic-%03g' 1 30)
# shellcheck disable=SC2086
measure "qasper 30x6" $qasper
# shellcheck disable=SC2086
measure "pdfs 8x6" $pdfs

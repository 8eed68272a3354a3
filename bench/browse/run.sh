#!/usr/bin/env bash
# Times papers browse on a library of 5,213 papers (the 5,183 SciFact
# abstracts and the 30 of the topic corpus, all in one topic, so the page
# lists them all): the first frame, each key, memory (bench/browse).
#
#   bash bench/browse/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/papers" ./cmd/papers
go build -o "$work/browse" ./bench/browse
export PAPERS_HOME="$work/lib"
"$work/papers" topic add all --query 'abs:agent' --description 'SciFact and the topic corpus' 2>/dev/null
"$work/papers" ingest --jsonl ../shared/data/scifact/corpus.jsonl --jsonl ../shared/data/topic/rl-for-llm-agents.jsonl --topic all >/dev/null 2>&1
echo "library: $("$work/papers" list --topic all | wc -l) papers in topic all; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/browse" -bin "$work/papers" -home "$PAPERS_HOME" -topic all -runs "$R" -w 80 -h 24
"$work/browse" -bin "$work/papers" -home "$PAPERS_HOME" -topic all -runs "$R" -w 120 -h 40
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Measures what issue 27 asks of papers, on the shared data: how soon every
# command that reads a local file answers /dev/zero, /dev/urandom, a named
# pipe and a socket; each hostile PDF, and a folder of all of them with two
# real papers, under a 1 GiB address-space cap (exit code, wall time, peak
# RSS of the process and its children); how soon SIGTERM ends commands in
# the middle of their work.
#
#   bash bench/reliability/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
D=../shared/data
work=$(mktemp -d)
trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null || true' EXIT
CGO_ENABLED=0 go build -o "$work/papers" ./cmd/papers
P="$work/papers"
export PAPERS_HOME="$work/lib" PAPERS_ARXIV_API_URL=http://127.0.0.1:1/api/query PAPERS_ARXIV_DELAY=0
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$P" ingest --jsonl "$D/topic/rl-for-llm-agents.jsonl" >/dev/null 2>&1
mkfifo "$work/x.pdf"
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); import time; time.sleep(3600)" "$work/s.pdf" &
sleep 0.5

echo "== special files: slowest exit of each command over /dev/zero, /dev/urandom, a FIFO, a socket"
for cmd in "ingest" "ingest --jsonl" "extract" "export --from" "eval --corpus" "eval --questions" "list --home"; do
  worst=0 codes=""
  for f in /dev/zero /dev/urandom "$work/x.pdf" "$work/s.pdf"; do
    extra=()
    case "$cmd" in
      "eval --corpus") extra=(--queries "$f" --qrels "$f") ;;
      "eval --questions") extra=(--library "$work/lib") ;;
    esac
    s=$(date +%s%N)
    set +e
    timeout -s KILL 20 $P $cmd "$f" "${extra[@]}" >/dev/null 2>&1
    c=$?
    set -e
    ms=$(( ($(date +%s%N) - s) / 1000000 ))
    (( ms > worst )) && worst=$ms
    codes="$codes$c "
  done
  printf '%-20s exit %s slowest %d ms\n' "$cmd" "$codes" "$worst"
done

echo "== hostile PDFs under ulimit -v 1048576 (1 GiB): papers extract (wall, peak RSS of papers and its child)"
set +e
for f in "$D"/pdfs/hostile/*.pdf; do
  /usr/bin/time -q -o "$work/time" -f '%e s %M KB' sh -c 'ulimit -v 1048576 && exec "$0" "$@"' "$P" extract "$f" >/dev/null 2>"$work/err"
  c=$?
  printf '%-26s exit %d  %s  %s\n' "$(basename "$f")" "$c" "$(cat "$work/time")" "$(grep -o 'PDF too large[^:]*: .*\|malformed PDF\|fatal error.*' "$work/err" | head -1)"
done
mkdir "$work/folder"
cp "$D"/pdfs/hostile/*.pdf "$D/pdfs/papers/pasa_2501.10120.pdf" "$D/pdfs/papers/papermage_emnlp2023demo.pdf" "$work/folder/"
echo "== papers ingest of the folder (13 hostile + 2 papers) under 1 GiB"
/usr/bin/time -q -o "$work/time" -f '%e s, peak RSS %M KB' sh -c 'ulimit -v 1048576 && exec "$0" "$@"' "$P" --home "$work/lib2" ingest "$work/folder" >"$work/out" 2>/dev/null
echo "exit $?, $(cat "$work/time"): $(tail -1 "$work/out")"
set -e

echo "== SIGTERM in the middle of the work: time to exit"
sigterm() { # label after args...
  local label=$1 after=$2
  shift 2
  rm -rf "$work/t"
  "$P" --home "$work/t" "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep "$after"
  local s=$(date +%s%N)
  kill -TERM $pid
  set +e; wait $pid; local c=$?; set -e
  printf '%-32s exit %d after %d ms\n' "$label" "$c" $(( ($(date +%s%N) - s) / 1000000 ))
}
sigterm "ingest of SciFact (5,183)" 1 ingest --jsonl "$D/scifact/corpus.jsonl"
sigterm "ingest of 294 peer PDFs" 1 ingest "$D/pdfs/peer/pdfs"
sigterm "extract of 619 pages" 0.5 extract "$D/pdfs/awkward/DA-619p_large_pagecount.pdf"
sigterm "eval of SciFact" 1 eval --corpus "$D/scifact/corpus.jsonl" --queries "$D/scifact/queries.jsonl" --qrels "$D/scifact/qrels/train.tsv"

# Shared by run.sh and compare.sh (sourced): timing of whole commands.

load() { echo "(load average $(cut -d' ' -f1-3 /proc/loadavg))"; }

# stats LABEL < lines of "seconds KB cpu-seconds": min / p50 / max wall,
# p50 CPU (user+system: under a shared machine's load it moves less than
# wall time), peak RSS
stats() {
  local lines cpu
  lines=$(sort -n)
  cpu=$(echo "$lines" | awk '{print $3}' | sort -n | awk '{c[NR]=$1*1000} END {printf "%.0f", c[int((NR+1)/2)]}')
  echo "$lines" | awk -v label="$1" -v cpu="$cpu" '{ s[NR]=$1*1000; if ($2>m) m=$2 } END {
    printf "%-32s min %6.0f  p50 %6.0f  max %6.0f ms  cpu p50 %5s ms  peak RSS %5.0f MB  (%d runs)\n", label, s[1], s[int((NR+1)/2)], s[NR], cpu, m/1024, NR }'
}

# timed CMD...: prints "seconds KB cpu-seconds" of one run of CMD
timed() { /usr/bin/time -f '%e %M %U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1, $2, $3+$4}'; }

#!/usr/bin/env bash
# The harness's own share: ping against the .NET floor (benchmarks/IpcBench.Floor, a bare request/reply loop on the
# same blocking-socket API and framing) and, when given, the C yardstick, for tcp and uds at 1 B, all same-core
# (client and server on CPU 0), in interleaved rounds of one script, ping warmed up as the floor is. Prints each
# round, then the medians of the rounds' p50 and of ping's ratio to the floor in each round: what IpcBench's loop costs
# over the least .NET can do; the floor's ratio to C is .NET's.
#
# Usage: benchmarks/floor.sh [ROUNDS]   (default 5)
# Settings: IPCBENCH_COUNT (50000 round trips a run), IPCREF (a built shared/tools/ipcref.c, e.g. /tmp/ipcref).
set -euo pipefail
cd "$(dirname "$0")/.."
. benchmarks/figures.sh
rounds=${1:-5}
count=${IPCBENCH_COUNT:-50000}
warmup=$(( count < 10000 ? count : 10000 )) # the floor's warm-up: as many as measured, 10,000 at most

dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
dotnet build -c Release benchmarks/IpcBench.Floor -v quiet -nologo > /dev/null
cli=src/IpcBench.Cli/bin/Release/net10.0/ipcbench
floor=benchmarks/IpcBench.Floor/bin/Release/net10.0/ipcbench-floor
log=$(mktemp /tmp/ipcbench-floor-XXXXXX)
json=$(mktemp /tmp/ipcbench-floor-XXXXXX)
trap 'rm -f "$log" "$json"' EXIT
# ping_p50 ARGS...: ping's p50, read from its results.json
ping_p50() {
  "$cli" ping "$@" --no-results --json "$json" > /dev/null
  figures "$json" '{p50}'
}

for round in $(seq "$rounds"); do
  for transport in tcp uds; do
    if [ -n "${IPCREF:-}" ]; then
      echo "$round $transport C $(taskset -c 0 "$IPCREF" "$transport" 1 "$count" | sed -n 's/.*p50=\([0-9.]*\)us.*/\1/p')"
    fi
    echo "$round $transport floor $(taskset -c 0 "$floor" "$transport" 1 "$count" | sed -n 's/.*p50=\([0-9.]*\)us.*/\1/p')"
    echo "$round $transport ping $(ping_p50 --transport "$transport" --size 1 --count "$count" --warmup "$warmup" --placement same-core)"
  done
done | tee "$log"

# The medians of the rounds' p50, and the median of each round's own ratio: this VM changes pace between rounds (its
# idle CPUs, its neighbours), and a ratio taken within a round, seconds apart, is not moved by that.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
p50s() { awk -v t="$1" -v w="$2" '$2 == t && $3 == w { print $4 }' "$log"; }
ratios() { # TRANSPORT A B: A / B in each round that has both
  awk -v t="$1" -v a="$2" -v b="$3" '$2 == t { v[$1 " " $3] = $4; r[$1] = 1 }
    END { for (k in r) if ((k " " a) in v && (k " " b) in v) printf "%.3f\n", v[k " " a] / v[k " " b] }' "$log"
}
echo "medians of $rounds rounds, p50 in us:"
for transport in tcp uds; do
  f=$(p50s "$transport" floor | median); p=$(p50s "$transport" ping | median); c=$(p50s "$transport" C | median)
  echo "  $transport: floor $f, ping $p, ping / floor $(ratios "$transport" ping floor | median) (median of the rounds' ratios)${c:+; C $c, floor / C $(ratios "$transport" floor C | median)}"
done

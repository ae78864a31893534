#!/usr/bin/env bash
# The harness's own share: ping against the .NET floor (benchmarks/IpcBench.Floor, a bare request/reply loop on the
# same blocking-socket API and framing) and, when given, the C yardstick, for tcp and uds at 1 B, all same-core
# (client and server on CPU 0), in interleaved rounds of one script. Prints each round, then the medians of the
# rounds' p50 and ping's ratio to the floor: what IpcBench's loop costs over the least .NET can do; the floor's
# ratio to C is .NET's.
#
# Usage: benchmarks/floor.sh [ROUNDS]   (default 5)
# Settings: IPCBENCH_COUNT (50000 round trips a run), IPCREF (a built shared/tools/ipcref.c, e.g. /tmp/ipcref).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
count=${IPCBENCH_COUNT:-50000}

dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
dotnet build -c Release benchmarks/IpcBench.Floor -v quiet -nologo > /dev/null
cli=src/IpcBench.Cli/bin/Release/net10.0/ipcbench
floor=benchmarks/IpcBench.Floor/bin/Release/net10.0/ipcbench-floor
log=$(mktemp /tmp/ipcbench-floor-XXXXXX)
trap 'rm -f "$log"' EXIT

for round in $(seq "$rounds"); do
  for transport in tcp uds; do
    if [ -n "${IPCREF:-}" ]; then
      echo "$round $transport C $(taskset -c 0 "$IPCREF" "$transport" 1 "$count" | sed -n 's/.*p50=\([0-9.]*\)us.*/\1/p')"
    fi
    echo "$round $transport floor $(taskset -c 0 "$floor" "$transport" 1 "$count" | sed -n 's/.*p50=\([0-9.]*\)us.*/\1/p')"
    echo "$round $transport ping $("$cli" ping --transport "$transport" --size 1 --count "$count" --placement same-core --no-results \
      | sed -n 's/.*p50 \([0-9.]*\) .*/\1/p')"
  done
done | tee "$log"

echo "medians of $rounds rounds, p50 in us:"
for transport in tcp uds; do
  median() { awk -v t="$transport" -v w="$1" '$2 == t && $3 == w { print $4 }' "$log" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
  f=$(median floor); p=$(median ping); c=$(median C)
  echo "  $transport: floor $f, ping $p (ping / floor $(awk -v p="$p" -v f="$f" 'BEGIN { printf "%.3f", p / f }'))${c:+, C $c (floor / C $(awk -v c="$c" -v f="$f" 'BEGIN { printf "%.3f", f / c }'))}"
done

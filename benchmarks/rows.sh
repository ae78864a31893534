#!/usr/bin/env bash
# Transports side by side: p50 and p99 of each transport and size in interleaved rounds of one script (so that a
# drift of the machine falls on every row), same-core (client and server take turns on CPU 0), then the medians of
# the rounds. The brokers the brokered rows go through (rabbitmq-server, nats-server, redis-server) are pinned to
# that CPU as well while it runs, and given back their affinity after: a broker left to float pays the idle CPU's
# wake-up on every hop (docs/placement.md), which is the machine's figure, not the transport's. A dbus server's
# private bus is its child, on its CPU already. Pinning another user's broker needs root; a broker it cannot pin is
# left where it runs, with a warning. A SIGKILLed run leaves them pinned until they restart.
#
# Usage: benchmarks/rows.sh [TRANSPORT...]   (default: tcp grpc grpc-codefirst amqp nats redis redis-uds dbus)
# Settings: IPCBENCH_ROUNDS (3), IPCBENCH_SIZES (1 100KB), IPCBENCH_COUNT (20000 requests at 1 B, a sixth of that
# at 100 KB; a quarter of both for all but tcp), IPCBENCH_PIN_BROKERS (1; 0 leaves them where they run).
set -euo pipefail
cd "$(dirname "$0")/.."
transports=("$@")
[ ${#transports[@]} -gt 0 ] || transports=(tcp grpc grpc-codefirst amqp nats redis redis-uds dbus)
rounds=${IPCBENCH_ROUNDS:-3}
read -r -a sizes <<< "${IPCBENCH_SIZES:-1 100KB}"
count=${IPCBENCH_COUNT:-20000}

dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
cli=src/IpcBench.Cli/bin/Release/net10.0/ipcbench
log=$(mktemp /tmp/ipcbench-rows-XXXXXX)
affinities=$(mktemp /tmp/ipcbench-rows-XXXXXX)
restore() {
  while read -r pid cpus; do taskset -a -p -c "$cpus" "$pid" > /dev/null 2>&1 || true; done < "$affinities"
  rm -f "$log" "$affinities"
}
trap restore EXIT
if [ "${IPCBENCH_PIN_BROKERS:-1}" = 1 ]; then
  for pid in $(pgrep -x 'beam.smp|nats-server|redis-server' || true); do
    cpus=$(taskset -p -c "$pid" | sed 's/.*: //')
    if taskset -a -p -c 0 "$pid" > /dev/null 2>&1; then
      echo "$pid $cpus" >> "$affinities"
    else
      echo "warning: could not pin $(ps -o comm= -p "$pid") (pid $pid): it runs where it ran" >&2
    fi
  done
  echo "brokers pinned to CPU 0: $(awk '{print $1}' "$affinities" | xargs -r ps -o comm= -p | sort -u | xargs)"
fi

for round in $(seq "$rounds"); do
  for transport in "${transports[@]}"; do
    for size in "${sizes[@]}"; do
      n=$count
      [ "$size" = 1 ] || n=$((count / 6))
      [ "$transport" = tcp ] || n=$((n / 4))
      line=$("$cli" ping --transport "$transport" --size "$size" --count "$n" --placement same-core --no-results | sed -n 2p)
      echo "$round $transport $size $(echo "$line" | awk '{print $4, $8}')" | tee -a "$log"
    done
  done
done

echo
echo "medians of $rounds rounds, same-core: transport size p50 p99 (us), p50 ratio to tcp's"
awk '
  { key = $2 " " $3; p50[key] = p50[key] " " $4; p99[key] = p99[key] " " $5; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
  function median(list,   a, k, i, j, t) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (i = 1; i <= n; i++) { split(order[i], ts, " "); if (ts[1] == "tcp") base[ts[2]] = median(p50[order[i]]) }
    for (i = 1; i <= n; i++) {
      split(order[i], ts, " ")
      m = median(p50[order[i]])
      printf "%-16s %-6s %9.1f %9.1f %s\n", ts[1], ts[2], m, median(p99[order[i]]), (ts[2] in base) ? sprintf("%.1fx", m / base[ts[2]]) : ""
    }
  }' "$log"

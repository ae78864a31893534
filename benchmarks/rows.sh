#!/usr/bin/env bash
# Transports side by side (the README's tables): each transport and size in interleaved, rotated rounds of one
# 'ipcbench plan' (a process launch per case and round), same-core (client and server take turns on CPU 0), reported
# as each case's median, least and most over the rounds. The brokers the brokered rows go through (rabbitmq-server,
# nats-server, redis-server) are pinned to that CPU as well while it runs, and given back their affinity after: a
# broker left to float pays the idle CPU's wake-up on every hop (docs/placement.md), which is the machine's figure, not
# the transport's. Only brokers of this user are pinned (another's are not this script's to move); a SIGKILLed run leaves them pinned until they restart.
#
# Usage: benchmarks/rows.sh [TRANSPORT...]   (default: tcp grpc grpc-codefirst amqp nats redis redis-uds dbus)
# Settings: IPCBENCH_ROUNDS (3), IPCBENCH_SIZES (1 100KB), IPCBENCH_COUNT (20000 requests at 1 B, a sixth of that
# at 100 KB; a quarter of both for all but tcp), IPCBENCH_PIN_BROKERS (1; 0 leaves them where they run), IPCBENCH_RESULTS.
set -euo pipefail
cd "$(dirname "$0")/.."
transports=("$@")
[ ${#transports[@]} -gt 0 ] || transports=(tcp grpc grpc-codefirst amqp nats redis redis-uds dbus)
read -r -a sizes <<< "${IPCBENCH_SIZES:-1 100KB}"
count=${IPCBENCH_COUNT:-20000}

dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
plan=$(mktemp /tmp/ipcbench-rows-XXXXXX)
affinities=$(mktemp /tmp/ipcbench-rows-XXXXXX)
restore() {
  while read -r pid cpus; do taskset -a -p -c "$cpus" "$pid" > /dev/null 2>&1 || true; done < "$affinities"
  rm -f "$plan" "$affinities"
}
trap restore EXIT
if [ "${IPCBENCH_PIN_BROKERS:-1}" = 1 ]; then
  for pid in $(pgrep -u "$(id -u)" -x beam.smp; pgrep -u "$(id -u)" -x nats-server; pgrep -u "$(id -u)" -x redis-server); do
    cpus=$(taskset -p -c "$pid" | sed 's/.*: //')
    taskset -a -p -c 0 "$pid" > /dev/null 2>&1 && echo "$pid $cpus" >> "$affinities" \
      || echo "warning: could not pin $(ps -o comm= -p "$pid") (pid $pid): it runs where it ran" >&2
  done
  echo "brokers pinned to CPU 0: $(awk '{print $1}' "$affinities" | xargs -r ps -o comm= -p | sort -u | xargs)"
fi

for transport in "${transports[@]}"; do
  for size in "${sizes[@]}"; do
    n=$count
    [ "$size" = 1 ] || n=$((count / 6))
    [ "$transport" = tcp ] || n=$((n / 4))
    echo "--transport $transport --size $size --count $n --placement same-core" >> "$plan"
  done
done
src/IpcBench.Cli/bin/Release/net10.0/ipcbench plan "$plan" --rounds "${IPCBENCH_ROUNDS:-3}"

#!/usr/bin/env bash
# Latency against offered load, in one run folder: for each transport, its closed-loop maximum with one client, then
# open loops (ping --rate) at 10% to 200% of that maximum, merged with 'ipcbench merge' so that summary.md holds
# them side by side and latency-by-load.svg draws the knee where each saturates. A rate the transport could not keep
# up with is marked "not sustained" in the reports.
#
# Usage: benchmarks/load-curve.sh [TRANSPORT...]   (default: tcp uds mmf grpc)
# Settings: IPCBENCH_PLACEMENT (cross-core: client on CPU 0, server on CPU 1), IPCBENCH_DURATION (3s a point),
# IPCBENCH_SHARES (0.1 0.25 0.5 0.75 1 2), IPCBENCH_RESULTS (results/).
set -euo pipefail
cd "$(dirname "$0")/.."
. benchmarks/figures.sh
transports=("$@")
[ ${#transports[@]} -gt 0 ] || transports=(tcp uds mmf grpc)
placement=${IPCBENCH_PLACEMENT:-cross-core}
duration=${IPCBENCH_DURATION:-3s}
read -r -a shares <<< "${IPCBENCH_SHARES:-0.1 0.25 0.5 0.75 1 2}"

dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
cli=src/IpcBench.Cli/bin/Release/net10.0/ipcbench
work=$(mktemp -d /tmp/ipcbench-load-XXXXXX)
trap 'rm -rf "$work"' EXIT

ping() { "$cli" ping --placement "$placement" --duration "$duration" --warmup 1s --results "$work" "$@"; }

for transport in "${transports[@]}"; do
  ping --transport "$transport" --json "$work/max.json"
  max=$(figures "$work/max.json" '{rps}')
  for share in "${shares[@]}"; do
    ping --transport "$transport" --rate "$(awk -v m="$max" -v s="$share" 'BEGIN { printf "%.0f", m * s }')"
  done
done
"$cli" merge --into "${IPCBENCH_RESULTS:-results}" "$work"/*-ping # prints the merged run's folder

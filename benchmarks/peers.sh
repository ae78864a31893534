#!/usr/bin/env bash
# IpcBench run the way its peers ran their published figures (docs/published-figures.md says which figure each line
# stands beside, and how the units differ), on this machine, in one script:
#   ipc-bench      one client, one message at a time, no pinning: round trips/s and the mean, 100 B and 1,000 B
#   grpc_bench     grpc, a 78 B echo, 50 connections x 20 in flight, server on one CPU and client on the other
#   Fusion RPC     calls/s with many calls in flight: grpc-tls, signalr-json, jsonrpc-json (and http, one per connection)
#   rpc-bench      Aeron's third-party run: an open loop of 10,000 requests a second, udp and grpc-stream
#   sockperf       Debian's sockperf ping-pong on loopback, 64 B, beside ipcbench tcp and udp at 64 B
#
# Usage: benchmarks/peers.sh   (sockperf: apt-get install sockperf; its line is skipped without it)
# Settings: IPCBENCH_DURATION (10s for the loaded runs).
set -euo pipefail
cd "$(dirname "$0")/.."
. docker/own.sh
. benchmarks/figures.sh
duration=${IPCBENCH_DURATION:-10s}
server="" # sockperf's server while it runs: stopped when this script ends, however it ends
json=$(mktemp /tmp/ipcbench-peers-XXXXXX)
trap 'rm -f "$json"; [ -z "$server" ] || stop_owned "$server" "sockperf server -i 127.0.0.1" 5 || true' EXIT
trap 'exit 130' INT TERM
dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
cli=src/IpcBench.Cli/bin/Release/net10.0/ipcbench

# One line per run: what ran, then p50, p99 and mean in us and requests/s, read from ping's results.json.
row() {
  local label=$1; shift
  "$cli" ping --no-results --json "$json" "$@" > /dev/null
  figures "$json" '{label:<44} p50 {p50!s:>9}  p99 {p99!s:>9}  mean {mean!s:>9} us  {rps!s:>9} requests/s' label="$label"
}

echo "== ipc-bench (one pair, closed loop, no pinning)"
for size in 100 1000; do
  row "tcp $size B" --transport tcp --size "$size" --count 100000 --placement none
  row "uds $size B" --transport uds --size "$size" --count 100000 --placement none
  row "mmf wait=spin $size B (cross-core)" --transport mmf --wait spin --size "$size" --count 500000 --placement cross-core
done

echo "== grpc_bench (78 B echo, 50 connections x 20 in flight, server and client a CPU each)"
row "grpc 78 B, 50 x 20" --transport grpc --size 78 --clients 50 --in-flight 20 --duration 20s --warmup 5s --placement cross-core

echo "== Fusion RPC benchmark (calls/s with many calls in flight; theirs over TLS, SignalR and StreamJsonRpc as JSON)"
row "grpc-tls 16 B, 8 x 64" --transport grpc-tls --size 16 --clients 8 --in-flight 64 --duration "$duration" --warmup 3s --placement none
row "grpc 16 B, 8 x 64 (cleartext)" --transport grpc --size 16 --clients 8 --in-flight 64 --duration "$duration" --warmup 3s --placement none
row "signalr-json 16 B, 8 x 64" --transport signalr-json --size 16 --clients 8 --in-flight 64 --duration "$duration" --warmup 3s --placement none
row "jsonrpc-json 16 B, 8 x 16" --transport jsonrpc-json --size 16 --clients 8 --in-flight 16 --duration "$duration" --warmup 3s --placement none
row "http 16 B, 64 clients" --transport http --size 16 --clients 64 --duration "$duration" --warmup 3s --placement none

echo "== rpc-bench's Aeron run (an open loop: 10,000 requests a second, each timed from when it was due)"
row "udp 32 B, --rate 10k" --transport udp --size 32 --rate 10k --duration "$duration" --warmup 2s --placement none
row "grpc-stream 32 B, --rate 10k" --transport grpc-stream --size 32 --rate 10k --duration "$duration" --warmup 2s --placement none
# One request at a time on the stream (its round trip ~150 us here) cannot keep 10k a second: half that, which it can.
row "grpc-stream 32 B, --rate 5k" --transport grpc-stream --size 32 --rate 5k --duration "$duration" --warmup 2s --placement none

echo "== sockperf (loopback ping-pong, 64 B, --full-rtt: round trips, as ipcbench times them)"
if command -v sockperf > /dev/null; then
  for protocol in udp tcp; do
    flag=""; [ "$protocol" = tcp ] && flag=--tcp
    sockperf server -i 127.0.0.1 -p 11111 $flag > /dev/null 2>&1 & server=$!
    sleep 1
    sockperf ping-pong -i 127.0.0.1 -p 11111 $flag -m 64 -t 10 --full-rtt 2>&1 | sed 's/\x1b\[[0-9;]*m//g' | awk -v p="$protocol" '
      /Summary: Round trip is/ { mean = $(NF-1) } /percentile 50.000/ { p50 = $NF } /percentile 99.000/ { p99 = $NF }
      END { printf "%-44s p50 %9s  p99 %9s  mean %9s us\n", "sockperf " p " 64 B (round trip)", p50, p99, mean }'
    stop_owned "$server" "sockperf server -i 127.0.0.1" 5; wait "$server" 2> /dev/null || true; server=""
    row "ipcbench $protocol 64 B (no pinning)" --transport "$protocol" --size 64 --duration 10s --placement none
  done
else
  echo "sockperf is not installed (apt-get install sockperf): skipped"
fi

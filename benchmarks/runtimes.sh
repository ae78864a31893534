#!/usr/bin/env bash
# The client's runtimes side by side (docs/runtimes.md): publishes ipcbench as a JIT build, a ReadyToRun build and a
# NativeAOT build into artifacts/runtimes/{jit,r2r,aot}/ (what 'ping --runtime' runs its client from), then, unless
# given 'publish' alone, measures each runtime in interleaved rounds, same-core: the cold start (a new client process
# per request, from its start to its checked reply: --scenario start) and the steady state, for tcp, uds and grpc.
# NativeAOT needs a C toolchain: clang (Debian's clang-14 is taken when there is no 'clang') and zlib1g-dev.
#
# Usage: benchmarks/runtimes.sh [publish] [TRANSPORT...]   (default transports: tcp uds grpc)
# Settings: IPCBENCH_ROUNDS (3), IPCBENCH_STARTS (20 cold starts a case), IPCBENCH_COUNT (20000 steady requests; a
# quarter for grpc), IPCBENCH_RUNTIMES (where the builds go).
set -euo pipefail
cd "$(dirname "$0")/.."
publish_only=0
[ "${1:-}" = publish ] && { publish_only=1; shift; }
transports=("$@")
[ ${#transports[@]} -gt 0 ] || transports=(tcp uds grpc)
builds=${IPCBENCH_RUNTIMES:-artifacts/runtimes}
rounds=${IPCBENCH_ROUNDS:-3}
starts=${IPCBENCH_STARTS:-20}
count=${IPCBENCH_COUNT:-20000}
compiler=clang
command -v clang > /dev/null || compiler=$(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -V | tail -1 || true)
[ -n "$compiler" ] || { echo "NativeAOT needs clang: apt-get install clang zlib1g-dev" >&2; exit 2; }

for runtime in jit r2r aot; do
  echo "== publishing the $runtime build into $builds/$runtime"
  # replaced only when it is an earlier build (or empty): IPCBENCH_RUNTIMES may name any folder
  [ ! -e "$builds/$runtime" ] || [ -x "$builds/$runtime/ipcbench" ] || [ -z "$(ls -A "$builds/$runtime")" ] \
    || { echo "runtimes.sh: $builds/$runtime is not an ipcbench build: not replacing it" >&2; exit 2; }
  rm -rf "${builds:?}/$runtime"
  extra=()
  # Each self-contained, so that the three differ in how the client's own code runs and in nothing else.
  extra=(-r linux-x64 --self-contained -p:IpcBenchRuntime=$runtime -p:CppCompilerAndLinker=$compiler)
  # The transports whose libraries warn of trimming or AOT are refused by that build (NativeAotUnsupportedReason):
  # their warnings are expected, and are not errors here.
  dotnet publish src/IpcBench.Cli -c Release -o "$builds/$runtime" -p:TreatWarningsAsErrors=false -v quiet -nologo "${extra[@]}" > /dev/null
done
[ "$publish_only" = 0 ] || exit 0

dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
cli=src/IpcBench.Cli/bin/Release/net10.0/ipcbench
export IPCBENCH_RUNTIMES=$builds
log=$(mktemp /tmp/ipcbench-runtimes-XXXXXX)
trap 'rm -f "$log"' EXIT
for round in $(seq "$rounds"); do
  for transport in "${transports[@]}"; do
    for runtime in jit r2r aot; do
      n=$count
      [ "$transport" = grpc ] && n=$((count / 4))
      start=$("$cli" ping --transport "$transport" --runtime "$runtime" --scenario start --count "$starts" --no-results | sed -n 2p | awk '{print $4}')
      steady=$("$cli" ping --transport "$transport" --runtime "$runtime" --count "$n" --no-results | sed -n 2p | awk '{print $4}')
      echo "$round $transport $runtime $start $steady" | tee -a "$log"
    done
  done
done
echo
echo "medians of $rounds rounds, same-core: transport runtime, cold start p50 (process start to first reply) and steady 1 B p50, us"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for transport in "${transports[@]}"; do
  for runtime in jit r2r aot; do
    start=$(awk -v t="$transport" -v r="$runtime" '$2 == t && $3 == r { print $4 }' "$log" | median)
    steady=$(awk -v t="$transport" -v r="$runtime" '$2 == t && $3 == r { print $5 }' "$log" | median)
    printf "%-6s %-4s %10.0f %8.1f\n" "$transport" "$runtime" "$start" "$steady"
  done
done

#!/usr/bin/env bash
# The client's runtimes side by side (docs/runtimes.md): publishes ipcbench as a JIT build, a ReadyToRun build and a
# NativeAOT build into artifacts/runtimes/{jit,r2r,aot}/ (what 'ping --runtime' runs its client from), then, unless
# given 'publish' alone, measures each runtime in interleaved rounds, same-core: the cold start (a new client process
# per request, from its start to its checked reply: --scenario start) and the steady state, for tcp, uds and grpc.
# NativeAOT needs a C toolchain: clang (Debian's clang-14 is taken when there is no 'clang') and zlib1g-dev.
#
# Usage: benchmarks/runtimes.sh [publish] [TRANSPORT...]   (default transports: tcp uds grpc)
# Settings: IPCBENCH_ROUNDS (3 rounds of one ipcbench plan), IPCBENCH_STARTS (20 cold starts a case), IPCBENCH_COUNT (20000 steady requests; a
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
  # Each self-contained, so that the three differ in how the client's own code runs and in nothing else.
  extra=(-r linux-x64 --self-contained -p:IpcBenchRuntime=$runtime -p:CppCompilerAndLinker=$compiler)
  # The transports whose libraries warn of trimming or AOT are refused by that build (NativeAotUnsupportedReason):
  # their warnings are expected, and are not errors here.
  dotnet publish src/IpcBench.Cli -c Release -o "$builds/$runtime" -p:TreatWarningsAsErrors=false -v quiet -nologo "${extra[@]}" > /dev/null
done
[ "$publish_only" = 0 ] || exit 0

dotnet build -c Release src/IpcBench.Cli -v quiet -nologo > /dev/null
export IPCBENCH_RUNTIMES=$builds
plan=$(mktemp /tmp/ipcbench-runtimes-XXXXXX)
trap 'rm -f "$plan"' EXIT
for transport in "${transports[@]}"; do
  for runtime in jit r2r aot; do
    n=$count
    [ "$transport" = grpc ] && n=$((count / 4))
    echo "--transport $transport --runtime $runtime --scenario start --count $starts" >> "$plan"
    echo "--transport $transport --runtime $runtime --count $n" >> "$plan"
  done
done
echo "== cold start (process start to first reply) and steady 1 B, each runtime, same-core"
src/IpcBench.Cli/bin/Release/net10.0/ipcbench plan "$plan" --rounds "$rounds"

#!/usr/bin/env bash
# CI's container check (called by .ci/run; root): installs docker.io, docker-compose and debootstrap; runs docker/run.sh
# for tcp, uds and mmf with short runs on an engine run.sh starts itself, and checks the merged run folder's transport x
# isolation table; then on an engine of its own, kills a second run.sh in the middle of a container pair and checks that
# no container, network, volume, namespace or veth link is left. A few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

packages="docker.io docker-compose debootstrap"
if ! dpkg -s $packages >/dev/null 2>&1; then
  echo "== installing $packages"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages >/dev/null
fi
if timeout 10 docker info >/dev/null 2>&1; then
  echo "docker/ci.sh: a Docker engine already answers; this check starts and stops its own" >&2
  exit 1
fi
out=$(mktemp -d /tmp/ipcbench-ci-XXXXXX)
. docker/engine.sh
run=""
trap '[ -z "$run" ] || { kill -TERM "$run" 2>/dev/null; wait "$run"; }; engine_stop; rm -rf "$out"' EXIT
fail() { echo "docker/ci.sh: $*" >&2; exit 1; }

echo "== docker/run.sh tcp uds mmf (1 B, 3,000 requests)"
IPCBENCH_SIZES=1 IPCBENCH_COUNT=3000 IPCBENCH_WARMUP=300 IPCBENCH_RESULTS="$out/results" timeout 15m docker/run.sh tcp uds mmf
summary=$(ls "$out"/results/*-merge/summary.md)
# A measured cell is "p50 / p99 (ratio)"; the row names the transport, each pair kind has its column.
cell='[0-9.,]+ / [0-9.,]+ \([0-9.]+x\)'
grep -q '^| transport | size | bare | netns | container | docker-shared-netns | docker-bridge | docker-volume | docker-shared-ipc |$' "$summary" \
  || fail "the isolation table's columns are not bare, netns, container and the four pair kinds: $(grep -m1 '^| transport | size | bare' "$summary")"
grep -Eq "^\| tcp [^|]*\| 1 B \| [0-9.]+ / [0-9.]+ \| $cell \| $cell \| $cell \| $cell \| - \| - \|$" "$summary" || fail "no tcp row measured in every isolation"
grep -Eq "^\| uds [^|]*\| 1 B \| [0-9.]+ / [0-9.]+ \| $cell \| $cell \| - \| - \| $cell \| - \|$" "$summary" || fail "no uds row with netns, container and the volume pair"
grep -Eq "^\| mmf [^|]*\| 1 B \| [0-9.]+ / [0-9.]+ \| $cell \| not supported \| - \| - \| - \| $cell \|$" "$summary" || fail "no mmf row with netns and the shared-IPC pair"

echo "== a run.sh killed in the middle of a container pair leaves nothing behind"
engine_start "$out/engine"
[ -z "$(docker ps -aq)" ] || fail "containers were left by the first run: $(docker ps -a)"
echo "== one container, both roles: ping starts its server inside the image (no dotnet there)"
docker run --rm --network none ipcbench ping --transport uds --count 300 --warmup 30 --no-results \
  || fail "ping in one container (its own server) failed"
IPCBENCH_ISOLATIONS=docker-bridge IPCBENCH_SIZES=100KB IPCBENCH_COUNT=10000000 IPCBENCH_RESULTS="$out/killed" docker/run.sh tcp >"$out/killed.log" 2>&1 &
run=$!
for _ in $(seq 240); do [ -n "$(docker ps -q --filter name=ipcbench-run-$run)" ] && break; sleep 0.5; done
[ -n "$(docker ps -q --filter name=ipcbench-run-$run)" ] || { cat "$out/killed.log" >&2; fail "the second run never started a pair"; }
kill -TERM "$run"
status=0; wait "$run" || status=$?
run=""
[ "$status" -eq 130 ] || { tail -n 20 "$out/killed.log" >&2; fail "a killed run.sh exited $status, not 130"; }
[ -z "$(docker ps -aq --filter name=ipcbench-run-)" ] || fail "containers left: $(docker ps -a)"
[ -z "$(docker network ls -q --filter name=ipcbench-run-)" ] || fail "networks left: $(docker network ls)"
[ -z "$(docker volume ls -q --filter name=ipcbench-run-)" ] || fail "volumes left: $(docker volume ls)"
! ip netns list | grep -q '^ipcbench-' || fail "network namespaces left: $(ip netns list)"
! ip -o link | grep -q ': ipcb[0-9a-f]*h' || fail "veth links left: $(ip -o link | grep ipcb)"
[ -z "$(ls -d /tmp/ipcbench-run-* 2>/dev/null)" ] || fail "work folders left: $(ls -d /tmp/ipcbench-run-*)"
echo "docker/ci.sh: nothing left behind"

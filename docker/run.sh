#!/usr/bin/env bash
# What a boundary between client and server costs: readies a Docker engine and the image, then runs 'ipcbench isolations'
# with the image's own build (docker/app): each transport bare, with its server in a network namespace, in a container
# without an image and under gVisor without Docker (ping --isolation), and in the Docker container pairs it can cross
# (a shared network namespace, a bridge, a shared volume, a shared IPC namespace, a broker's container; the server under
# a VM runtime or gVisor), merged into one run folder whose summary.md has the transport x isolation table.
# 'ipcbench isolations --help' says which pairs; --dry-run which ones each transport would cross. A server in a VM of
# its own, booted by qemu: docker/vm.sh.
#
#   docker/run.sh [TRANSPORT...]          default: tcp uds mmf grpc zmq
#
# Variables, each the verb's option of that name: IPCBENCH_ISOLATIONS (--isolations, all by default: e.g. "none
# docker-bridge"), IPCBENCH_SIZES (1,100KB), IPCBENCH_COUNT (20000), IPCBENCH_WARMUP (1000), IPCBENCH_PLACEMENT (same-core
# or cross-core; the containers get the matching cpusets), IPCBENCH_RESULTS (results/), IPCBENCH_IMAGE (ipcbench),
# IPCBENCH_VM_RUNTIME (kata: docker/compose.kata.yaml); and IPCBENCH_IMAGE_ROUTE (auto: the official images when a
# registry answers, else docker/build-offline.sh).
# Needs root, docker and docker-compose (Debian: docker.io docker-compose debootstrap) and the .NET SDK. Starts a Docker
# engine of its own when none answers, and stops it again. Removes every container, network and volume it made, also
# when interrupted. Its work folder is a private state folder (docker/own.sh: /run/ipcbench/run.sh-PID as root).
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root (network namespaces, a Docker engine)" >&2; exit 2; }
compose=(docker-compose)
command -v docker-compose >/dev/null || compose=(docker compose)
for tool in docker dotnet ip unshare; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (Debian: apt-get install docker.io docker-compose debootstrap iproute2)" >&2; exit 2; }
done
image=${IPCBENCH_IMAGE:-ipcbench}
project=ipcbench-run-$$

# -- the build the image carries, and the verb's options checked by it (one line, exit 2) before any engine starts
echo "== dotnet publish: self-contained, linux-x64"
rm -rf docker/app # a publish of its own, as build-offline.sh makes it: nothing of an older one left in the image
dotnet publish src/IpcBench.Cli -c Release -r linux-x64 --self-contained -o docker/app -v quiet -nologo
cli=docker/app/ipcbench
verb=(isolations --results "$(realpath -m "${IPCBENCH_RESULTS:-results}")" --image "$image")
[ $# -eq 0 ] || verb+=(--transports "$(IFS=,; echo "$*")")
[ -z "${IPCBENCH_ISOLATIONS:-}" ] || verb+=(--isolations "${IPCBENCH_ISOLATIONS// /,}")
for option in sizes count warmup placement vm-runtime; do
  variable=IPCBENCH_$(tr a-z- A-Z_ <<<"$option")
  [ -z "${!variable:-}" ] || verb+=("--$option" "${!variable}")
done
"$cli" "${verb[@]}" --dry-run

. docker/own.sh
. docker/engine.sh
work=$(own_dir "run.sh-$$") # the pid names whose it is, for the next run if this one is killed
# Long commands run in the background and are waited for: bash runs a trap only once the foreground command ends, and
# a wait ends at once on a signal. The trap then stops the child (on SIGTERM the verb takes its pairs down, and its
# pings their servers and namespaces).
# Its pid and command line are kept for the next run, which stops it only if that pid still runs that command.
child="" child_command=""
in_background() { "$@" & child=$! child_command="$*"; printf '%s\n%s\n' "$child" "$child_command" >"$work/child"; wait "$child"; }
pairs_down() { # PROJECT: its pairs' containers, networks and volumes, whichever profile made them
  "${compose[@]}" -p "$1" -f docker/compose.yaml --profile shared-netns --profile volume \
    --profile shared-ipc --profile broker down -v --remove-orphans >/dev/null 2>&1 || true
  # A container that a 'compose up' still stopping had in hand can outlive 'down' (seen in CI): remove it by its label.
  local label="label=com.docker.compose.project=$1" left
  left=$(docker ps -aq --filter "$label" 2>/dev/null || true)
  [ -z "$left" ] || docker rm -f -v $left >/dev/null 2>&1 || true
  left=$(docker network ls -q --filter "$label" 2>/dev/null || true)
  [ -z "$left" ] || docker network rm $left >/dev/null 2>&1 || true
  left=$(docker volume ls -q --filter "$label" 2>/dev/null || true)
  [ -z "$left" ] || docker volume rm -f $left >/dev/null 2>&1 || true
}
cleanup() {
  status=$?
  trap - EXIT INT TERM
  if [ -n "$child" ]; then stop_owned "$child" "$child_command" || true; wait "$child" 2>/dev/null || true; fi
  pairs_down "$project"
  engine_orphans_remove
  engine_stop
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# -- what a run killed by SIGKILL left (no trap ran in it): its child, its pairs, the engine it started, its work folder;
# only from state folders of this user's (own_stale), and a pid only while it runs what was started
mapfile -t stale < <(own_stale run.sh)
for dir in "${stale[@]}"; do
  owner=${dir##*-}
  echo "== removing what run.sh $owner left (it was killed)"
  if [ -s "$dir/child" ]; then # before 'down', which races a stopping 'up'
    { read -r pid; read -r cmd; } <"$dir/child" || true
    stop_owned "$pid" "$cmd" || true
  fi
  ! timeout 10 docker info >/dev/null 2>&1 || pairs_down "ipcbench-run-$owner"
  engine_sweep "$dir/engine" # an engine no one answers for any more
  rm -rf "$dir"
done

# -- the engine: the one that answers, else one of our own
if ! timeout 10 docker info >/dev/null 2>&1; then
  echo "== starting a Docker engine (no other answers)"
  engine_start "$work/engine"
fi

# -- pairs of a run.sh that is gone and left no work folder to say so (the engine's data root outlives both)
for gone in $( { docker ps -a --format '{{.Label "com.docker.compose.project"}}'
                 docker network ls --format '{{.Label "com.docker.compose.project"}}'; } 2>/dev/null | sort -u); do
  [[ "$gone" =~ ^ipcbench-run-([0-9]+)$ ]] || continue
  owner=${BASH_REMATCH[1]} # before own_alive, whose own matches replace BASH_REMATCH
  ! own_alive "$owner" run.sh || continue
  echo "== removing the pairs of run.sh $owner (it is gone)"
  pairs_down "$gone"
done

# -- the image, from the build just published; the verb runs that same build on the host
route=${IPCBENCH_IMAGE_ROUTE:-auto}
if [ "$route" = auto ]; then
  route=offline
  timeout 30 docker pull -q mcr.microsoft.com/dotnet/runtime-deps:10.0 >/dev/null 2>&1 && route=registry
fi
if [ "$route" = registry ]; then
  echo "== docker build (official .NET images)"
  docker build -q -f docker/Dockerfile -t "$image" . >/dev/null
else
  IPCBENCH_IMAGE=$image docker/build-offline.sh --published
fi
# -- the measurements, the merge and the table: the verb (it builds the broker images its broker pairs need), in the
# background so that a signal reaches the trap at once; it takes its pairs down itself, the trap again if it is killed
in_background "$cli" "${verb[@]}" --project "$project"

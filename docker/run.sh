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
for tool in docker dotnet ip unshare; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (Debian: apt-get install docker.io docker-compose debootstrap iproute2)" >&2; exit 2; }
done
command -v docker-compose >/dev/null || timeout 10 docker compose version >/dev/null 2>&1 \
  || { echo "run.sh: neither docker-compose nor 'docker compose' is there (Debian: apt-get install docker-compose)" >&2; exit 2; }
image=${IPCBENCH_IMAGE:-ipcbench}

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
cleanup() { # the verb first: on SIGTERM it takes its pairs down, and its pings their servers and namespaces
  status=$?
  trap - EXIT INT TERM
  own_stop_child "$work" 60
  engine_orphans_remove
  engine_stop
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# -- what a run killed by SIGKILL left: its verb (which takes its pairs down), the engine it started, its work folder.
# The verb, when it starts, takes down the pairs of a verb that is gone.
own_sweep run.sh engine_sweep

# -- the engine: the one that answers, else one of our own
if ! timeout 10 docker info >/dev/null 2>&1; then
  echo "== starting a Docker engine (no other answers)"
  engine_start "$work/engine"
fi

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
# background so that a signal reaches the trap at once; it takes its pairs down itself
own_background "$work" "$cli" "${verb[@]}"

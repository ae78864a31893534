#!/usr/bin/env bash
# What a boundary between client and server costs: each transport measured bare, with the server in a network
# namespace (ping --isolation netns), in a process-isolated container without an image (--isolation container), and as
# Docker container pairs (the client in the server's network namespace; two containers on a bridge network; socket
# files on a shared volume; mmf over a shared IPC namespace), in one run, merged into one run folder whose summary.md
# has the transport x isolation table.
#
#   docker/run.sh [TRANSPORT...]          default: tcp uds mmf grpc zmq
#
# Variables: IPCBENCH_SIZES (1,100KB), IPCBENCH_COUNT (20000), IPCBENCH_WARMUP (1000), IPCBENCH_PLACEMENT (same-core or
# cross-core; the containers get the matching cpusets), IPCBENCH_RESULTS (results/), IPCBENCH_IMAGE (ipcbench),
# IPCBENCH_IMAGE_ROUTE (auto: the official images when a registry answers, else docker/build-offline.sh).
# Needs root, docker and docker-compose (Debian: docker.io docker-compose debootstrap) and the .NET SDK. Starts a Docker
# engine of its own when none answers, and stops it again. Removes every container, network and volume it made, also
# when interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."

transports=("$@")
[ ${#transports[@]} -gt 0 ] || transports=(tcp uds mmf grpc zmq)
sizes=${IPCBENCH_SIZES:-1,100KB}
count=${IPCBENCH_COUNT:-20000}
warmup=${IPCBENCH_WARMUP:-1000}
placement=${IPCBENCH_PLACEMENT:-same-core}
results=$(realpath -m "${IPCBENCH_RESULTS:-results}")
image=${IPCBENCH_IMAGE:-ipcbench}
project=ipcbench-run-$$
case "$placement" in
  same-core) server_cpuset=0 client_cpuset=0 ;;
  cross-core) server_cpuset=1 client_cpuset=0 ;;
  *) echo "run.sh: IPCBENCH_PLACEMENT must be same-core or cross-core, not '$placement'" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root (network namespaces, a Docker engine)" >&2; exit 2; }
compose=(docker-compose)
command -v docker-compose >/dev/null || compose=(docker compose)
for tool in docker dotnet ip unshare; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (Debian: apt-get install docker.io docker-compose debootstrap iproute2)" >&2; exit 2; }
done

work=$(mktemp -d /tmp/ipcbench-run-XXXXXX)
engine_pid=""
cleanup() {
  status=$?
  trap - EXIT INT TERM
  "${compose[@]}" -p "$project" -f docker/compose.yaml --profile bridge --profile shared-netns --profile volume \
    --profile shared-ipc down -v --remove-orphans >/dev/null 2>&1 || true
  if [ -n "$engine_pid" ]; then
    kill "$engine_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# -- the engine: the one that answers, else one of our own (data kept in /var/lib/ipcbench-docker for the next run)
if ! timeout 10 docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || { echo "run.sh: no Docker engine answers and dockerd is missing" >&2; exit 2; }
  echo "== starting a Docker engine (no other answers)"
  mkdir -p /var/lib/ipcbench-docker
  # --bip keeps even the default bridge link-local (169.254.0.0/16), as every network IpcBench makes.
  dockerd --data-root /var/lib/ipcbench-docker --exec-root "$work/engine" --pidfile "$work/dockerd.pid" \
    --bip 169.254.76.1/24 >"$work/dockerd.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 60); do timeout 5 docker info >/dev/null 2>&1 && break; sleep 0.5; done
  timeout 5 docker info >/dev/null 2>&1 || { tail -n 20 "$work/dockerd.log" >&2; echo "run.sh: the Docker engine did not start" >&2; exit 1; }
fi

# -- the image, and the same build on the host for the bare and namespace runs
route=${IPCBENCH_IMAGE_ROUTE:-auto}
if [ "$route" = auto ]; then
  route=offline
  timeout 30 docker pull -q mcr.microsoft.com/dotnet/runtime-deps:10.0 >/dev/null 2>&1 && route=registry
fi
if [ "$route" = registry ]; then
  echo "== docker build (official .NET images)"
  dotnet publish src/IpcBench.Cli -c Release -r linux-x64 --self-contained -o docker/app -v quiet -nologo
  docker build -q -f docker/Dockerfile -t "$image" . >/dev/null
else
  IPCBENCH_IMAGE=$image docker/build-offline.sh
fi
cli=docker/app/ipcbench

# -- one measurement per (transport, size, isolation); a run folder each under $work/ISOLATION
skipped=()
note_skip() { # TRANSPORT ISOLATION REASON
  echo "   $1 in $2: not supported: $3"
  skipped+=(--skipped "$1 $2 $3")
}
host_ping() { # ISOLATION TRANSPORT SIZE
  local out err
  out="$work/$1"; err="$work/err"
  if "$cli" ping --transport "$2" --size "$3" --count "$count" --warmup "$warmup" --placement "$placement" \
      --isolation "$1" --results "$out" >"$work/out" 2>"$err"; then
    sed -n 2p "$work/out" | sed "s/^ */   $2 $3 B $1: /"
  elif [ $? -eq 3 ]; then
    [ "$3" != "${sizes%%,*}" ] || note_skip "$2" "$1" "$(tail -n 1 "$err" | sed 's/^.* here: //')"
  else
    cat "$err" >&2; return 1
  fi
}
pair() { # PROFILE TRANSPORT SIZE ADDRESS
  local out="$work/docker-$1"
  mkdir -p "$out"
  if IPCBENCH_TRANSPORT=$2 IPCBENCH_SIZE=$3 IPCBENCH_ADDRESS=$4 IPCBENCH_COUNT=$count IPCBENCH_WARMUP=$warmup \
      IPCBENCH_PLACEMENT=$placement IPCBENCH_SERVER_CPUSET=$server_cpuset IPCBENCH_CLIENT_CPUSET=$client_cpuset \
      IPCBENCH_IMAGE=$image IPCBENCH_RESULTS_DIR=$out \
      "${compose[@]}" -p "$project" -f docker/compose.yaml --profile "$1" up --abort-on-container-exit \
      --exit-code-from "$1-client" >"$work/out" 2>&1; then
    grep -m1 'latency us' "$work/out" | sed "s/^.*latency us */   $2 $3 B docker-$1: /"
  else
    local server code
    server=$("${compose[@]}" -p "$project" -f docker/compose.yaml --profile "$1" ps -q "$1-server")
    code=$(docker inspect -f '{{.State.ExitCode}}' "$server" 2>/dev/null || echo "?")
    if [ "$code" = 3 ]; then # the server said it cannot run in this image
      [ "$3" != "${sizes%%,*}" ] || note_skip "$2" "docker-$1" "$(docker logs "$server" 2>&1 | tail -n 1 | sed 's/^ipcbench serve: //')"
    else
      tail -n 30 "$work/out" >&2; echo "run.sh: the $1 pair for $2 at $3 failed" >&2; return 1
    fi
  fi
  "${compose[@]}" -p "$project" -f docker/compose.yaml --profile "$1" down -v --remove-orphans >/dev/null 2>&1
}

features() { "$cli" list | awk -v t="$1" '$1 == t { print $3 }'; }
echo "== measuring: ${transports[*]} at $sizes, $count requests each, placement $placement"
for transport in "${transports[@]}"; do
  kind=$(features "$transport")
  [ -n "$kind" ] || { echo "run.sh: unknown transport '$transport' (see 'ipcbench list')" >&2; exit 2; }
  for size in ${sizes//,/ }; do
    for isolation in none netns container; do host_ping "$isolation" "$transport" "$size"; done
    case "$transport,$kind" in
      amqp*) note_skip "$transport" docker-bridge "run.sh has no broker image offline; see docker/compose.yaml's broker profile" ;;
      mmf,*) pair shared-ipc "$transport" "$size" "mmf:///dev/shm/ipcbench-channel" ;;
      *cross-host*) pair shared-netns "$transport" "$size" "" && pair bridge "$transport" "$size" "" ;;
      pipe,*|jsonrpc*|grpc-pipe,*) pair volume "$transport" "$size" "$transport://ipcbench" ;;
      *) pair volume "$transport" "$size" "$transport:///run/ipcbench/s.sock" ;;
    esac
  done
done

# -- one run folder: the bare runs unlabelled, the namespaces' as ping labelled them, the pairs by their profile
sources=()
for isolation in none netns container docker-shared-netns docker-bridge docker-volume docker-shared-ipc; do
  label=""; case "$isolation" in docker-*) label="$isolation=" ;; esac
  for dir in "$work/$isolation"/*; do [ -d "$dir" ] && sources+=("$label$dir"); done
done
merged=$("$cli" merge --into "$results" "${skipped[@]}" "${sources[@]}")
echo "== $merged"
sed -n '/^## Isolation/,/^## Cost/p' "$merged/summary.md" | sed '$d'

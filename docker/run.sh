#!/usr/bin/env bash
# What a boundary between client and server costs: each transport measured bare, with the server in a network
# namespace (ping --isolation netns), in a process-isolated container without an image (--isolation container), under
# gVisor without Docker (--isolation sandbox), and as Docker container pairs (the client in the server's network
# namespace; two containers on a bridge network; socket files on a shared volume; mmf over a shared IPC namespace; the
# server under a VM's or gVisor's runtime), in one run, merged into one run folder whose summary.md has the transport x
# isolation table. A server in a VM of its own, booted by qemu: docker/vm.sh.
#
#   docker/run.sh [TRANSPORT...]          default: tcp uds mmf grpc zmq
#
# Variables: IPCBENCH_ISOLATIONS (all: none netns container sandbox docker-shared-netns docker-bridge docker-vm-bridge
# docker-sandbox-bridge docker-sandbox-hostnet-bridge docker-volume docker-sandbox-volume docker-shared-ipc docker-broker;
# none is bare; docker-broker puts a brokered transport's broker
# (Debian's RabbitMQ, nats-server or redis-server), server and client in three containers on the bridge network, and
# redis-uds's socket on a volume the three share; docker-vm-bridge is the bridge pair with the server under the VM
# runtime IPCBENCH_VM_RUNTIME, kata, where the engine has it: docker/compose.kata.yaml; docker-sandbox-bridge,
# docker-sandbox-hostnet-bridge and docker-sandbox-volume are the bridge and volume pairs with the server under gVisor:
# docker/compose.sandbox.yaml), IPCBENCH_SIZES (1,100KB),
# IPCBENCH_COUNT (20000), IPCBENCH_WARMUP (1000), IPCBENCH_PLACEMENT (same-core or
# cross-core; the containers get the matching cpusets), IPCBENCH_RESULTS (results/), IPCBENCH_IMAGE (ipcbench),
# IPCBENCH_IMAGE_ROUTE (auto: the official images when a registry answers, else docker/build-offline.sh).
# Needs root, docker and docker-compose (Debian: docker.io docker-compose debootstrap) and the .NET SDK. Starts a Docker
# engine of its own when none answers, and stops it again. Removes every container, network and volume it made, also
# when interrupted. Its work folder is a private state folder (docker/own.sh: /run/ipcbench/run.sh-PID as root).
set -euo pipefail
cd "$(dirname "$0")/.."

transports=("$@")
[ ${#transports[@]} -gt 0 ] || transports=(tcp uds mmf grpc zmq)
sizes=${IPCBENCH_SIZES:-1,100KB}
count=${IPCBENCH_COUNT:-20000}
warmup=${IPCBENCH_WARMUP:-1000}
placement=${IPCBENCH_PLACEMENT:-same-core}
all_isolations=$(echo none netns container sandbox docker-shared-netns docker-bridge docker-vm-bridge docker-sandbox-bridge \
  docker-sandbox-hostnet-bridge docker-volume docker-sandbox-volume docker-shared-ipc docker-broker) # one line
vm_runtime=${IPCBENCH_VM_RUNTIME:-kata}
isolations=" ${IPCBENCH_ISOLATIONS:-$all_isolations} "
for isolation in $isolations; do
  [[ " $all_isolations " == *" $isolation "* ]] || { echo "run.sh: IPCBENCH_ISOLATIONS: '$isolation' is not one of $all_isolations" >&2; exit 2; }
done
wanted() { [[ "$isolations" == *" $1 "* ]]; }
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

. docker/own.sh
. docker/engine.sh
. docker/transports.sh
work=$(own_dir "run.sh-$$") # the pid names whose it is, for the next run if this one is killed
# Long commands run in the background and are waited for: bash runs a trap only once the foreground command ends, and
# a wait ends at once on a signal. The trap then stops the child (ping removes its server and namespace on SIGTERM).
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
# What each transport can cross (docker/transports.sh), asked of the build just published. The broker pairs' brokers
# are Debian's on either route, made offline (the official images start each its own way): rabbitmq, nats and redis.
cli=docker/app/ipcbench
facts=$(transport_facts "$cli" "${transports[@]}")
brokers=()
for broker in $(awk '$3 != "-" { sub(/-server$/, "", $3); print $3 }' <<<"$facts" | sort -u); do brokers+=(--broker "$broker"); done
[ ${#brokers[@]} -eq 0 ] || docker/build-offline.sh --brokers-only "${brokers[@]}"

# -- one measurement per (transport, size, isolation); a run folder each under $work/ISOLATION
skipped=()
declare -A noted
note_skip() { # TRANSPORT ISOLATION REASON: once per transport and isolation, whatever the sizes
  [ -z "${noted[$1 $2]:-}" ] || return 0
  noted[$1 $2]=1
  echo "   $1 in $2: not supported: $3"
  skipped+=(--skipped "$1 $2 $3")
}
# runtime_of PAIR: the runtime the pair's server runs under: a VM's (Kata), gVisor's (netstack or host network), or runc.
runtime_of() {
  case "$1" in
    vm-*) echo "$vm_runtime" ;;
    sandbox-hostnet-*) echo ipcbench-runsc-hostnet ;;
    sandbox-*) echo ipcbench-runsc ;;
    *) echo runc ;;
  esac
}
# runtime_refuses RUNTIME: why RUNTIME cannot run a container on this engine (nothing when it can): not registered, or
# a preflight container fails to start. Asked once per runtime; a failed gVisor start leaves its sandbox behind. The
# preflight has a link-local network of its own: an engine not started here has a private range on its default bridge.
declare -A refusals
runtime_refuses() {
  [ "$1" != runc ] || return 0
  if [ -z "${refusals[$1]+asked}" ]; then
    refusals[$1]=""
    if ! docker info --format '{{range $name, $_ := .Runtimes}}{{$name}} {{end}}' | grep -qw -- "$1"; then
      refusals[$1]="no runtime $1 is registered with this Docker engine (see docker/compose.kata.yaml, docker/compose.sandbox.yaml)"
    elif ! { docker network create --subnet 169.254.75.0/24 --label "com.docker.compose.project=$project" "$project-preflight" \
          && timeout 120 docker run --rm --runtime "$1" --network "$project-preflight" --entrypoint true "$image"; } >"$work/preflight" 2>&1; then
      refusals[$1]="a container under $1 does not start here: $(grep -m1 -o 'starting container: .*\|Error response from daemon: .*' "$work/preflight" | cut -c1-240)"
      engine_orphans_remove
    fi
    docker network rm "$project-preflight" >/dev/null 2>&1 || true
  fi
  echo "${refusals[$1]}"
}
# pair PAIR TRANSPORT SIZE ADDRESS: PAIR is a compose profile, or one with the server under another runtime: vm-bridge
# (Kata: docker/compose.kata.yaml), sandbox-bridge, sandbox-hostnet-bridge, sandbox-volume (gVisor: compose.sandbox.yaml).
pair() {
  wanted "docker-$1" || return 0
  local out="$work/docker-$1" files=(-f docker/compose.yaml) profile=${1#vm-} runtime why
  profile=${profile#sandbox-}; profile=${profile#hostnet-}
  runtime=$(runtime_of "$1")
  why=$(runtime_refuses "$runtime")
  if [ -n "$why" ]; then note_skip "$2" "docker-$1" "$why"; return 0; fi
  case "$1" in
    vm-*) files+=(-f docker/compose.kata.yaml) ;;
    sandbox-*) files+=(-f docker/compose.sandbox.yaml) ;;
  esac
  mkdir -p "$out"
  if IPCBENCH_TRANSPORT=$2 IPCBENCH_SIZE=$3 IPCBENCH_ADDRESS=$4 IPCBENCH_COUNT=$count IPCBENCH_WARMUP=$warmup \
      IPCBENCH_PLACEMENT=$placement IPCBENCH_SERVER_CPUSET=$server_cpuset IPCBENCH_CLIENT_CPUSET=$client_cpuset \
      IPCBENCH_IMAGE=$image IPCBENCH_RESULTS_DIR=$out IPCBENCH_SANDBOX_RUNTIME=$runtime \
      in_background "${compose[@]}" -p "$project" "${files[@]}" --profile "$profile" up --abort-on-container-exit \
      --exit-code-from "$profile-client" "$profile-client" >"$work/out" 2>&1; then # the client and what it depends on, not the default pair
    figures_line "$(find "$out" -name results.json -newer "$work/child" | head -n 1)" "$2 at $3, docker-$1"
  else
    local server code
    server=$("${compose[@]}" -p "$project" "${files[@]}" --profile "$profile" ps -q "$profile-server")
    code=$(docker inspect -f '{{.State.ExitCode}}' "$server" 2>/dev/null || echo "?")
    if [ "$code" = 3 ]; then # the server said it cannot run in this image
      note_skip "$2" "docker-$1" "$(docker logs "$server" 2>&1 | tail -n 1 | sed 's/^ipcbench serve: //')"
    else
      tail -n 30 "$work/out" >&2; echo "run.sh: the $1 pair for $2 at $3 failed" >&2; return 1
    fi
  fi
  # The column is named after the runtime the server ran under, as the engine reports it, not as asked for.
  local ran
  ran=$(docker inspect -f '{{.HostConfig.Runtime}}' "$("${compose[@]}" -p "$project" "${files[@]}" --profile "$profile" ps -q "$profile-server")")
  [ "$ran" = "$runtime" ] || { echo "run.sh: the $1 pair's server ran under $ran, not $runtime" >&2; return 1; }
  "${compose[@]}" -p "$project" "${files[@]}" --profile "$profile" down -v --remove-orphans >/dev/null 2>&1
}

echo "== measuring: ${transports[*]} at $sizes, $count requests each, placement $placement"
# -- beside the client, in namespaces and under gVisor: a plan each, every transport and size in it; what cannot run
# there is in the plan's results as skipped, with the reason
for isolation in none netns container sandbox; do
  wanted "$isolation" || continue
  echo "== isolation $isolation"
  in_background "$cli" plan --transports "$(IFS=,; echo "${transports[*]}")" --sizes "$sizes" --results "$work/$isolation" \
    --each "--count $count --warmup $warmup --placement $placement --isolation $isolation" || exit 1
done
# -- container pairs, by what each transport's client meets its server on
network_pairs="shared-netns bridge vm-bridge sandbox-bridge sandbox-hostnet-bridge"
while read -r transport meets broker port option tls; do
  for size in ${sizes//,/ }; do
    if [ "$broker" != - ]; then
      address=$transport://169.254.77.20:$port/?$option=ipcbench
      [ "$meets" = broker ] || address=$transport:///run/ipcbench/${broker%-server}.sock?$option=ipcbench # the broker's socket, on the shared volume
      IPCBENCH_BROKER_IMAGE=ipcbench-broker-${broker%-server}:bookworm pair broker "$transport" "$size" "$address"
      continue
    fi
    case "$meets,$tls" in
      shared-memory,*) pair shared-ipc "$transport" "$size" "$transport:///dev/shm/ipcbench-channel" ;;
      network,1) for kind in $network_pairs; do # the pin travels only in the server's READY line
          note_skip "$transport" "docker-$kind" "its client trusts only the certificate its server makes at start, named (pin=) in the server's READY line, which a client container is not given"
        done ;;
      network,*) for kind in $network_pairs; do pair "$kind" "$transport" "$size" ""; done ;;
      pipe-name,*) for kind in volume sandbox-volume; do pair "$kind" "$transport" "$size" "$transport://ipcbench"; done ;;
      socket-file,*) for kind in volume sandbox-volume; do pair "$kind" "$transport" "$size" "$transport:///run/ipcbench/s.sock"; done ;;
    esac
  done
done <<<"$facts"

# -- one run folder: the bare runs unlabelled, the namespaces' as ping labelled them, the pairs by their profile
sources=()
for isolation in $all_isolations; do
  label=""; case "$isolation" in docker-*) label="$isolation=" ;; esac
  for dir in "$work/$isolation"/*; do [ -d "$dir" ] && sources+=("$label$dir"); done
done
merged=$("$cli" merge --into "$results" "${skipped[@]}" "${sources[@]}")
echo "== $merged"
sed -n '/^## Isolation/,/^## Cost/p' "$merged/summary.md" | sed '$d'

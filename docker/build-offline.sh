#!/usr/bin/env bash
# Builds the ipcbench image without an image registry (air-gapped machines, CI here): a Debian base made with
# debootstrap from the package mirror and kept as an image, a self-contained publish made on this machine, and
# docker/Dockerfile's 'prebuilt' stage on top. Needs root, docker, debootstrap and the .NET SDK.
#   docker/build-offline.sh                    # builds 'ipcbench' (IPCBENCH_IMAGE) on 'ipcbench-base:bookworm' (IPCBENCH_BASE_IMAGE)
#   docker/build-offline.sh --broker nats ...  # and a broker image for compose.yaml's broker profile:
#                                              # ipcbench-broker-NAME:bookworm, Debian's server, started by the image's command
#   docker/build-offline.sh --brokers-only --broker redis   # the broker images alone ('ipcbench isolations' on either route)
#   docker/build-offline.sh --published        # the image from docker/app as it is (docker/run.sh has just published it)
# Brokers: rabbitmq (amqp*, user ipcbench/ipcbench), nats (nats), redis (redis, redis-uds: also its socket in /run/ipcbench).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${IPCBENCH_BASE_IMAGE:-ipcbench-base:bookworm}
image=${IPCBENCH_IMAGE:-ipcbench}

brokers=() app=yes publish=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --broker) [ $# -ge 2 ] || { echo "build-offline: --broker needs a name: rabbitmq, nats or redis" >&2; exit 2; }
      brokers+=("$2"); shift 2 ;;
    --brokers-only) app=no; shift ;;
    --published) publish=no; shift ;;
    *) echo "build-offline: unknown argument '$1' (--broker NAME, --brokers-only, --published)" >&2; exit 2 ;;
  esac
done

roots=()
trap 'rm -rf "${roots[@]}"' EXIT
# debootstrap_image IMAGE PACKAGES CMD [FILE CONTENT]: a minimal bookworm with PACKAGES (and FILE written) whose command
# is CMD (a JSON array, or "" for none), imported as IMAGE. Made once per recipe: the recipe's hash is a tag of its own,
# and IMAGE is moved to it, so a changed package list makes a new image and an unchanged one none.
debootstrap_image() {
  local recipe
  recipe="$1-$(printf '%s\n' "$2" "$3" "${4:-}" "${5:-}" | sha256sum | cut -c1-12)"
  if ! docker image inspect "$recipe" >/dev/null 2>&1; then
    command -v debootstrap >/dev/null || { echo "build-offline: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
    local root change=()
    root=$(mktemp -d /var/tmp/ipcbench-image-XXXXXX)
    roots+=("$root" "$root.log")
    echo "== debootstrap: a minimal bookworm with $2 (30-90 s)"
    debootstrap --variant=minbase --include="$2" bookworm "$root" >"$root.log" 2>&1 || { tail -n 20 "$root.log" >&2; exit 1; }
    [ -z "${4:-}" ] || printf '%s\n' "$5" >"$root/$4"
    mkdir -p "$root/run/ipcbench" # where the pairs' volume goes
    [ -z "$3" ] || change=(--change "CMD $3")
    tar -C "$root" -c . | docker import "${change[@]}" - "$recipe" >/dev/null
  fi
  docker tag "$recipe" "$1"
}

# dbus-daemon for the dbus server's private bus; libzmq5 for zmq-libzmq.
debootstrap_image "$base" libicu72,libssl3,libzmq5,ca-certificates,dbus-daemon ""
for broker in "${brokers[@]}"; do
  case "$broker" in
    # RabbitMQ's guest user may log in from localhost only; the pair's server and client are other containers.
    rabbitmq) debootstrap_image ipcbench-broker-rabbitmq:bookworm rabbitmq-server '["rabbitmq-server"]' \
        etc/rabbitmq/rabbitmq.conf "default_user = ipcbench
default_pass = ipcbench" ;;
    nats) debootstrap_image ipcbench-broker-nats:bookworm nats-server '["nats-server", "-a", "0.0.0.0", "-p", "4222"]' ;;
    # No password: the pair's network is its own. The socket goes to the volume the pair shares (redis-uds).
    redis) debootstrap_image ipcbench-broker-redis:bookworm redis-server '["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no", "--unixsocket", "/run/ipcbench/redis.sock", "--unixsocketperm", "700"]' ;;
    *) echo "build-offline: no broker '$broker' (rabbitmq, nats or redis)" >&2; exit 2 ;;
  esac
done
[ "$app" = yes ] || exit 0

if [ "$publish" = yes ]; then
  echo "== dotnet publish: self-contained, linux-x64"
  rm -rf docker/app
  dotnet publish src/IpcBench.Cli -c Release -r linux-x64 --self-contained -o docker/app -v quiet -nologo
fi
[ -x docker/app/ipcbench ] || { echo "build-offline: docker/app/ipcbench is missing: publish it, or leave out --published" >&2; exit 2; }
echo "== docker build: $image on $base"
previous=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
docker build -q -f docker/Dockerfile -t "$image" --target prebuilt --build-arg RUNTIME_IMAGE="$base" . >/dev/null
# The image it replaces would stay as an untagged layer set of its own, one per build.
[ -z "$previous" ] || [ "$previous" = "$(docker image inspect -f '{{.Id}}' "$image")" ] || docker rmi "$previous" >/dev/null 2>&1 || true
echo "built $image"

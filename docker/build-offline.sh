#!/usr/bin/env bash
# Builds the ipcbench image without an image registry (air-gapped machines, CI here): a Debian base made with
# debootstrap from the package mirror and kept as an image, a self-contained publish made on this machine, and
# docker/Dockerfile's 'prebuilt' stage on top. Needs root, docker, debootstrap and the .NET SDK.
#   docker/build-offline.sh            # builds 'ipcbench' (IPCBENCH_IMAGE) on 'ipcbench-base:bookworm' (IPCBENCH_BASE_IMAGE)
#   docker/build-offline.sh --broker   # and 'ipcbench-broker:bookworm' (IPCBENCH_BROKER_IMAGE): Debian's RabbitMQ for
#                                      # compose.yaml's broker profile, user ipcbench/ipcbench
set -euo pipefail
cd "$(dirname "$0")/.."
base=${IPCBENCH_BASE_IMAGE:-ipcbench-base:bookworm}
broker=${IPCBENCH_BROKER_IMAGE:-ipcbench-broker:bookworm}
image=${IPCBENCH_IMAGE:-ipcbench}

roots=()
trap 'rm -rf "${roots[@]}"' EXIT
# debootstrap_image IMAGE PACKAGES [FILE CONTENT]: a minimal bookworm with PACKAGES (and FILE written), imported as
# IMAGE; kept, so made once.
debootstrap_image() {
  docker image inspect "$1" >/dev/null 2>&1 && return 0
  command -v debootstrap >/dev/null || { echo "build-offline: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
  local root
  root=$(mktemp -d /var/tmp/ipcbench-image-XXXXXX)
  roots+=("$root" "$root.log")
  echo "== debootstrap: a minimal bookworm with $2 (30-60 s)"
  debootstrap --variant=minbase --include="$2" bookworm "$root" >"$root.log" 2>&1 || { tail -n 20 "$root.log" >&2; exit 1; }
  [ $# -lt 4 ] || printf '%s\n' "$4" >"$root/$3"
  tar -C "$root" -c . | docker import - "$1" >/dev/null
}

debootstrap_image "$base" libicu72,libssl3,libzmq5,ca-certificates
if [ "${1:-}" = --broker ]; then
  # RabbitMQ's guest user may log in from localhost only; the pair's server and client are other containers.
  debootstrap_image "$broker" rabbitmq-server etc/rabbitmq/rabbitmq.conf "default_user = ipcbench
default_pass = ipcbench"
fi

echo "== dotnet publish: self-contained, linux-x64"
rm -rf docker/app
dotnet publish src/IpcBench.Cli -c Release -r linux-x64 --self-contained -o docker/app -v quiet -nologo
echo "== docker build: $image on $base"
docker build -q -f docker/Dockerfile -t "$image" --target prebuilt --build-arg RUNTIME_IMAGE="$base" . >/dev/null
echo "built $image"

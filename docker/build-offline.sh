#!/usr/bin/env bash
# Builds the ipcbench image without an image registry (air-gapped machines, CI here): a Debian base made with
# debootstrap from the package mirror and kept as an image, a self-contained publish made on this machine, and
# docker/Dockerfile's 'prebuilt' stage on top. Needs root, docker, debootstrap and the .NET SDK.
#   docker/build-offline.sh          # builds 'ipcbench' (IPCBENCH_IMAGE) on 'ipcbench-base:bookworm' (IPCBENCH_BASE_IMAGE)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${IPCBENCH_BASE_IMAGE:-ipcbench-base:bookworm}
image=${IPCBENCH_IMAGE:-ipcbench}

if ! docker image inspect "$base" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null || { echo "build-offline: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
  root=$(mktemp -d /var/tmp/ipcbench-base-XXXXXX)
  trap 'rm -rf "$root"' EXIT
  echo "== debootstrap: a minimal bookworm with what .NET and libzmq need (about 30 s)"
  debootstrap --variant=minbase --include=libicu72,libssl3,libzmq5,ca-certificates bookworm "$root" >"$root.log" 2>&1 \
    || { tail -n 20 "$root.log" >&2; rm -f "$root.log"; exit 1; }
  rm -f "$root.log"
  tar -C "$root" -c . | docker import - "$base" >/dev/null
fi

echo "== dotnet publish: self-contained, linux-x64"
rm -rf docker/app
dotnet publish src/IpcBench.Cli -c Release -r linux-x64 --self-contained -o docker/app -v quiet -nologo
echo "== docker build: $image on $base"
docker build -q -f docker/Dockerfile -t "$image" --target prebuilt --build-arg RUNTIME_IMAGE="$base" . >/dev/null
echo "built $image"

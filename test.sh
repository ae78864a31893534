#!/usr/bin/env bash
# Runs the IpcBench tests on a fresh Debian/Ubuntu machine: installs and starts what the
# transports under test need (libzmq5 for zmq-libzmq, a RabbitMQ broker for amqp, a nats-server for nats,
# a redis-server for redis and redis-uds, dbus-daemon for dbus's private buses,
# Mono with its WCF for the wcf host, gVisor's runsc for --isolation sandbox), the Python modules of the interop tests (gRPC and ZeroMQ clients in another
# language), Chromium (report.html is opened in it, headless) and HdrHistogram's Java tools (latency.hlog is read back
# with them), then dotnet test, then checks that
# the tests left nothing behind (tests/leftovers.sh), then the scripts' own checks (tests/scripts.sh).
# The nats-server and redis-server ask for a password (tests/brokers.sh), which reaches the tests through
# IPCBENCH_NATS_URL and IPCBENCH_REDIS_URL.
# Needs root (or sudo) for the installs; with everything already there it installs nothing.
set -euo pipefail
cd "$(dirname "$0")"
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
. docker/own.sh
. tests/brokers.sh

packages="libzmq5 rabbitmq-server nats-server redis-server dbus-daemon mono-runtime libmono-system-servicemodel4.0a-cil runsc python3-grpcio python3-grpc-tools python3-zmq chromium default-jre-headless libhdrhistogram-java"
if ! dpkg -s $packages >/dev/null 2>&1; then
  echo "== installing $packages"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $packages
fi
if ! $sudo rabbitmqctl -q status >/dev/null 2>&1; then
  echo "== starting rabbitmq-server"
  # The init script returns once the node is up; it does not need systemd.
  timeout 120 $sudo service rabbitmq-server start
fi
timeout 60 $sudo rabbitmqctl -q await_startup --timeout 50
# nats-server and redis-server, as the user the tests run as, with a password; they stay for the next run as the broker does
brokers_up || exit 1

before=$(mktemp)
trap 'rm -f "$before"' EXIT
tests/leftovers.sh list >"$before"

echo "== dotnet test"
# One build, then the test projects side by side: the conformance suite runs its classes in parallel and IpcBench.Tests
# runs its one at a time, each mostly waiting on processes, timeouts and brokers, so together they take the longer
# one's time (measured 665 s against 984 s one after the other). Each project's output is printed once it is done.
# Arguments go to each 'dotnet test'; a trx LogFilePrefix gets the project's name, so that two files cannot take one name.
status=0
dotnet build IpcBench.sln -v quiet -nologo || status=$?
outputs=$(mktemp -d)
pids=()
projects=()
# An interrupted test.sh takes its test runs with it.
trap 'rm -f "$before"; rm -rf "$outputs"; [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$status" -eq 0 ]; then
  for project in tests/*/*.csproj; do
    grep -q '<IsTestProject>true</IsTestProject>' "$project" || continue
    name=$(basename "$project" .csproj)
    args=()
    for arg in "$@"; do args+=("$(sed -E "s/(LogFilePrefix=[^;]*)/\\1-$name/" <<<"$arg")"); done
    dotnet test "$project" --no-build --blame-hang-timeout 5m "${args[@]}" >"$outputs/$name" 2>&1 &
    pids+=($!)
    projects+=("$name")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=$?
    echo "== dotnet test ${projects[$i]}"
    cat "$outputs/${projects[$i]}"
  done
  pids=()
fi

echo "== nothing left behind (tests/leftovers.sh: processes, socket and shared-memory files, namespaces, links, containers, queues, Redis channels and keys)"
if ! left=$(tests/leftovers.sh since "$before"); then
  echo "the tests left these behind:" >&2
  echo "$left" >&2
  [ "$status" -ne 0 ] || status=1
else
  echo "nothing left behind"
fi

echo "== the scripts keep to their own state and processes (tests/scripts.sh)"
$sudo tests/scripts.sh || { [ "$status" -ne 0 ] || status=1; }
exit "$status"

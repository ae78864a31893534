#!/usr/bin/env bash
# Runs the IpcBench tests on a fresh Debian/Ubuntu machine: installs and starts what the
# transports under test need (libzmq5 for zmq-libzmq, a RabbitMQ broker for amqp, a nats-server for nats,
# a redis-server for redis and redis-uds, dbus-daemon for dbus's private buses,
# Mono with its WCF for the wcf host, gVisor's runsc for --isolation sandbox), the Python modules of the interop tests (gRPC and ZeroMQ clients in another
# language) and Chromium (report.html is opened in it, headless), then dotnet test, then checks that
# the tests left nothing behind (tests/leftovers.sh).
# Needs root (or sudo) for the installs; with everything already there it installs nothing.
set -euo pipefail
cd "$(dirname "$0")"
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

packages="libzmq5 rabbitmq-server nats-server redis-server dbus-daemon mono-runtime libmono-system-servicemodel4.0a-cil runsc python3-grpcio python3-grpc-tools python3-zmq chromium"
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
nats_answers() { timeout 2 bash -c '</dev/tcp/127.0.0.1/4222' 2>/dev/null; }
if ! nats_answers; then
  echo "== starting nats-server"
  # Debian starts it through systemd only; by hand it runs in the foreground, so it goes to the background here,
  # on loopback, and stays for the next run as the broker does.
  $sudo setsid nats-server -a 127.0.0.1 -p 4222 -P /tmp/nats-server.pid </dev/null >/tmp/nats-server.log 2>&1 &
  for _ in $(seq 50); do nats_answers && break; sleep 0.2; done
  nats_answers || { cat /tmp/nats-server.log >&2; echo "nats-server did not start" >&2; exit 1; }
fi
redis_socket=/run/redis/redis-server.sock
redis_answers() { timeout 2 redis-cli -s "$redis_socket" ping >/dev/null 2>&1 && timeout 2 redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; }
if ! redis_answers; then
  echo "== starting redis-server"
  # By hand, as nats-server: on loopback and on the Unix socket Debian's redis.conf suggests, owner-only and so run as
  # the user the tests run as (not root through sudo), with no snapshot on disk; it stays for the next run.
  $sudo install -d -o "$(id -u)" -g "$(id -g)" "$(dirname "$redis_socket")"
  redis-server --bind 127.0.0.1 --port 6379 --unixsocket "$redis_socket" --unixsocketperm 700 --save '' --appendonly no \
    --dir /tmp --daemonize yes --pidfile "/tmp/redis-server-$(id -u).pid" --logfile "/tmp/redis-server-$(id -u).log"
  for _ in $(seq 50); do redis_answers && break; sleep 0.2; done
  redis_answers || { cat "/tmp/redis-server-$(id -u).log" >&2
    echo "redis-server did not start, or one without $redis_socket holds port 6379 (a packaged one: service redis-server stop)" >&2; exit 1; }
fi

before=$(mktemp)
trap 'rm -f "$before"' EXIT
tests/leftovers.sh list >"$before"

echo "== dotnet test"
status=0
dotnet test IpcBench.sln --blame-hang-timeout 5m "$@" || status=$?

echo "== nothing left behind (tests/leftovers.sh: processes, socket and shared-memory files, namespaces, links, containers, queues, Redis channels and keys)"
if ! left=$(tests/leftovers.sh since "$before"); then
  echo "the tests left these behind:" >&2
  echo "$left" >&2
  [ "$status" -ne 0 ] || status=1
else
  echo "nothing left behind"
fi
exit "$status"

#!/usr/bin/env bash
# What IpcBench could leave behind, one line each: its processes (servers, client processes, the Mono WCF host), its
# files in the temp directory and /dev/shm (socket files, named pipes, shared memory, private directories), the scripts'
# state folders (docker/own.sh; test.sh's brokers' aside), network namespaces, veth links, a VM's tap, gVisor sandboxes,
# containers, broker queues, and Redis channels and keys (with test.sh's password, from tests/brokers.sh).
#   tests/leftovers.sh list          prints them now
#   tests/leftovers.sh since FILE    prints those not in FILE (an earlier list), waiting up to 20 s for them to go:
#                                    a stopping server, a durable queue set to expire; exit 1 if any stay
# test.sh lists them before dotnet test and checks after it, so that a test run that leaks fails.
set -uo pipefail
. "$(dirname "$0")/../docker/own.sh"
. "$(dirname "$0")/brokers.sh"
brokers_env
tmp=${TMPDIR:-/tmp}
tmp=${tmp%/}

list() {
  # Processes whose command line names IpcBench, except this script's own pipeline, the test host while it runs and the
  # nats-server test.sh keeps.
  ps -eo pid=,args= | awk -v self=$$ '$1 != self && /[Ii]pc[Bb]ench/ && !/leftovers\.sh|awk -v self|nats-server -c [^ ]*\/brokers\/nats\.conf/ { print "process " $0 }'
  # A .NET named pipe on Unix is a socket file CoreFxPipe_NAME in the temp directory.
  find "$tmp" -maxdepth 1 \( -name 'ipcbench*' -o -name 'CoreFxPipe_ipcbench*' \) -printf 'file %p\n' 2>/dev/null
  find /dev/shm -mindepth 1 -maxdepth 1 -printf 'shm %p\n' 2>/dev/null
  find "$(own_root)" -mindepth 1 -maxdepth 1 ! -name brokers -printf 'state %p\n' 2>/dev/null
  ip netns list 2>/dev/null | awk '{ print "netns " $1 }'
  find /etc/netns -mindepth 1 -maxdepth 1 -printf 'netns-config %p\n' 2>/dev/null
  ip -o link show type veth 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print "veth " $2 }'
  ip -o link show 2>/dev/null | awk -F': ' '$2 ~ /^ipcbvm/ { print "tap " $2 }' # docker/vm.sh's guest link
  # gVisor's sandbox and gofer processes (--isolation sandbox, the sandbox pairs), whose command lines need not name IpcBench.
  ps -eo pid=,args= | awk '$2 ~ /^runsc-(sandbox|gofer)/ { print "gvisor " $1 " " $2 }'
  if command -v docker >/dev/null && timeout 5 docker info >/dev/null 2>&1; then
    timeout 10 docker ps -a --format 'container {{.Names}} {{.Image}}'
  fi
  if command -v rabbitmqctl >/dev/null && timeout 10 rabbitmqctl -q status >/dev/null 2>&1; then
    timeout 20 rabbitmqctl -q list_queues name 2>/dev/null | awk 'NR > 1 || $1 != "name" { print "queue " $1 }'
  fi
  if command -v redis-cli >/dev/null && [ "$(timeout 2 redis-cli ping 2>/dev/null)" = PONG ]; then
    timeout 5 redis-cli --raw PUBSUB CHANNELS 'ipcbench*' | awk 'NF { print "redis-channel " $1 }'
    timeout 5 redis-cli --raw --scan | awk 'NF { print "redis-key " $1 }'
  fi
}

case "${1:-}" in
  list) list | sort ;;
  since)
    before=${2:?usage: tests/leftovers.sh since FILE}
    for _ in $(seq 20); do
      left=$(list | sort | comm -13 "$before" -)
      [ -z "$left" ] && exit 0
      sleep 1
    done
    echo "$left"
    exit 1 ;;
  *) echo "usage: tests/leftovers.sh list | since FILE" >&2; exit 2 ;;
esac

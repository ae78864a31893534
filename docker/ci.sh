#!/usr/bin/env bash
# CI's container check (called by .ci/run; root): installs docker.io, docker-compose, debootstrap and runsc; runs
# docker/run.sh for tcp, uds, mmf, dbus, nats and redis-uds with short runs on an engine run.sh starts itself (gVisor's
# runsc registered), and checks the merged run folder's transport x isolation table, the sandboxed pairs' columns too;
# kills a run.sh with SIGKILL mid-pair and checks that the next run.sh removes its pairs, engine and work folder; then
# on an engine of its own, kills a run.sh (SIGTERM) in the middle of a container pair and checks that no container,
# network, volume, namespace or veth link is left, and stops a pair's server container mid-run: its client must fail
# within seconds with one line and exit 1; last, the VM route: docker/vm.sh --check boots the server in a qemu guest
# (emulated here) and pings it once. A few minutes. Its work folder is a private state folder (docker/own.sh), and
# what a ci.sh killed by SIGKILL left (its engine, its folder) goes when the next one starts.
set -euo pipefail
cd "$(dirname "$0")/.."

packages="docker.io docker-compose debootstrap runsc" # .ci/run reads this line: it installs them while its tests run
if ! dpkg -s $packages >/dev/null 2>&1; then
  echo "== installing $packages"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages >/dev/null
fi
. docker/own.sh
. docker/engine.sh
. tests/brokers.sh
own_sweep ci.sh engine_sweep
if timeout 10 docker info >/dev/null 2>&1; then
  echo "docker/ci.sh: a Docker engine already answers; this check starts and stops its own" >&2
  exit 1
fi
out=$(own_dir "ci.sh-$$")
run=""
stop_pair() { # each may find nothing to remove
  docker rm -f ipcbench-ci-server ipcbench-ci-client >/dev/null 2>&1 || true
  docker network rm ipcbench-ci-stop >/dev/null 2>&1 || true
  (cd docker && docker-compose -p ipcbench-ci-default down -v --remove-orphans >/dev/null 2>&1) || true
}
# A run.sh stopped by the trap removes its pairs and engine first: two minutes for that.
trap '[ -z "$run" ] || { stop_owned "$run" docker/run.sh 120; wait "$run" || true; }; [ -z "$engine_pid" ] || stop_pair; engine_stop; rm -rf "$out"' EXIT
fail() { echo "docker/ci.sh: $*" >&2; exit 1; }
state=$(own_root)

echo "== docker/run.sh tcp uds mmf dbus nats redis-uds (1 B, 3,000 requests)"
# The host's nats-server and redis-server (test.sh starts them, with the password brokers_env exports) serve the bare
# runs; the pairs have brokers of their own.
brokers_env
IPCBENCH_SIZES=1 IPCBENCH_COUNT=3000 IPCBENCH_WARMUP=300 IPCBENCH_RESULTS="$out/results" timeout 20m docker/run.sh tcp uds mmf dbus nats redis-uds
results=$(ls "$out"/results/*-merge/results.json)
isolations="bare netns container sandbox docker-shared-netns docker-bridge docker-sandbox-bridge docker-sandbox-hostnet-bridge docker-volume docker-sandbox-volume docker-shared-ipc docker-broker"
row() { # TRANSPORT STATE...: in each of $isolations at 1 B, the transport measured (m), skipped with a reason (s) or neither (-)
  python3 - "$results" "$isolations" "$@" <<'PY'
import json, sys
run, isolations, transport, states = json.load(open(sys.argv[1])), sys.argv[2].split(), sys.argv[3], sys.argv[4:]
where = lambda options: dict(p.split("=", 1) for p in options.split("&") if "=" in p).get("isolation", "bare")
measured = {where(c["options"]) for c in run["cases"] if c["transport"] == transport and c["size"] == 1}
skipped = {where(s["options"]) for s in run["skipped"] if s["transport"] == transport}
got = ["m" if i in measured else "s" if i in skipped else "-" for i in isolations]
sys.exit(None if got == states else f"{transport}: {' '.join(got)} in {' '.join(isolations)}, not {' '.join(states)}")
PY
}
# gVisor: without Docker (sandbox) the socket-file transports; its pairs (docker-sandbox-*) tcp over its own network
# stack and over the host's, uds and dbus's bus on the volume.
row tcp m m m s m m m m - - - - || fail "no tcp row measured in every isolation"
row uds m m m m - - - - m m - - || fail "no uds row with netns, container, sandbox and the volume pairs"
row mmf m m s s - - - - - - m - || fail "no mmf row with netns and the shared-IPC pair"
row dbus m m m m - - - - m m - - || fail "no dbus row with netns, container, sandbox and the volume pairs (its bus socket on the volume)"
# Brokered: a broker on the host's loopback is out of reach of a namespace of the server's own; one behind a socket file is not.
row nats m s s s - - - - - - - m || fail "no nats row with the broker pair (a nats-server in a third container)"
row redis-uds m m m m - - - - - - - m || fail "no redis-uds row with netns, container, sandbox and the broker pair (redis-server's socket on the volume the three share)"
! pgrep -af 'runsc-(sandbox|gofer)|containerd-shim' || fail "gVisor sandboxes or containerd shims outlived run.sh and its engine"

echo "== a run.sh killed by SIGKILL (no trap runs) leaves nothing once the next run.sh starts"
IPCBENCH_ISOLATIONS=docker-bridge IPCBENCH_SIZES=100KB IPCBENCH_COUNT=10000000 IPCBENCH_RESULTS="$out/sigkilled" docker/run.sh tcp >"$out/sigkilled.log" 2>&1 &
run=$!
for _ in $(seq 240); do timeout 5 docker ps -q --filter name=ipcbench-isolations- 2>/dev/null | grep -q . && break; sleep 0.5; done
timeout 5 docker ps -q --filter name=ipcbench-isolations- | grep -q . || { cat "$out/sigkilled.log" >&2; fail "the run to be killed never started a pair"; }
killed=$run
! own_alive "$run" docker/run.sh || kill -KILL "$run"
wait "$run" 2>/dev/null || true
run=""
pgrep -f 'dockerd --data-root /var/lib/ipcbench-docker' >/dev/null || fail "the killed run left no engine: nothing to check"
IPCBENCH_ISOLATIONS=none IPCBENCH_SIZES=1 IPCBENCH_COUNT=300 IPCBENCH_WARMUP=30 IPCBENCH_RESULTS="$out/after-kill" timeout 10m docker/run.sh tcp \
  >"$out/after-kill.log" 2>&1 || { cat "$out/after-kill.log" >&2; fail "the run after a killed one failed"; }
grep -q "removing what run.sh $killed left" "$out/after-kill.log" || { cat "$out/after-kill.log" >&2; fail "the next run did not clean up after the killed one"; }
! pgrep -f 'dockerd --data-root /var/lib/ipcbench-docker' >/dev/null || fail "a Docker engine of a run.sh still runs: $(pgrep -af dockerd)"
[ -z "$(ls -d "$state"/run.sh-* 2>/dev/null)" ] || fail "work folders left: $(ls -d "$state"/run.sh-*)"

echo "== a run.sh killed in the middle of a container pair leaves nothing behind"
engine_start "$out/engine"
[ -z "$(docker ps -aq)" ] || fail "containers were left by the runs before: $(docker ps -a)"
[ -z "$(docker network ls -q --filter name=ipcbench-isolations-)" ] || fail "networks were left by the runs before: $(docker network ls)"
echo "== one container, both roles: ping starts its server inside the image (no dotnet there)"
docker run --rm --network none ipcbench ping --transport uds --count 300 --warmup 30 --no-results \
  || fail "ping in one container (its own server) failed"
echo "== docker compose up in docker/: the default pair, tcp over a bridge, with the image there is"
(cd docker && IPCBENCH_COUNT=300 IPCBENCH_WARMUP=30 IPCBENCH_RESULTS_DIR="$out/compose" timeout 5m docker-compose -p ipcbench-ci-default \
  up --abort-on-container-exit --exit-code-from bridge-client >"$out/compose.log" 2>&1) \
  || { tail -n 20 "$out/compose.log" >&2; fail "docker compose up (the default pair) failed"; }
stop_pair
python3 -c 'import glob, json, sys; runs = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/*/results.json")]
sys.exit(not (len(runs) == 1 and [c["transport"] for c in runs[0]["cases"]] == ["tcp"]))' "$out/compose" \
  || fail "the default pair wrote no run folder of one tcp case: $(ls -R "$out/compose")"
IPCBENCH_ISOLATIONS=docker-bridge IPCBENCH_SIZES=100KB IPCBENCH_COUNT=10000000 IPCBENCH_RESULTS="$out/killed" docker/run.sh tcp >"$out/killed.log" 2>&1 &
run=$!
for _ in $(seq 240); do [ -n "$(docker ps -q --filter name=ipcbench-isolations-)" ] && break; sleep 0.5; done
[ -n "$(docker ps -q --filter name=ipcbench-isolations-)" ] || { cat "$out/killed.log" >&2; fail "the second run never started a pair"; }
! own_alive "$run" docker/run.sh || kill -TERM "$run"
status=0; wait "$run" || status=$?
run=""
[ "$status" -eq 130 ] || { tail -n 20 "$out/killed.log" >&2; fail "a killed run.sh exited $status, not 130"; }
[ -z "$(docker ps -aq --filter name=ipcbench-isolations-)" ] || fail "containers left: $(docker ps -a)"
[ -z "$(docker network ls -q --filter name=ipcbench-isolations-)" ] || fail "networks left: $(docker network ls)"
[ -z "$(docker volume ls -q --filter name=ipcbench-isolations-)" ] || fail "volumes left: $(docker volume ls)"
! ip netns list | grep -q '^ipcbench-' || fail "network namespaces left: $(ip netns list)"
! ip -o link | grep -q ': ipcb[0-9a-f]*h' || fail "veth links left: $(ip -o link | grep ipcb)"
[ -z "$(ls -d "$state"/run.sh-* 2>/dev/null)" ] || fail "work folders left: $(ls -d "$state"/run.sh-*)"

echo "== a pair's server container stopped mid-run: its client fails within seconds, one line, exit 1"
docker network create --subnet 169.254.78.0/24 ipcbench-ci-stop >/dev/null
docker run -d --name ipcbench-ci-server --network ipcbench-ci-stop --ip 169.254.78.10 ipcbench \
  serve --transport tcp --address tcp://169.254.78.10:5000 >/dev/null
docker run --name ipcbench-ci-client --network ipcbench-ci-stop ipcbench ping --transport tcp \
  --server tcp://169.254.78.10:5000 --wait-for-server 30s --duration 120s --warmup 0 --no-results >"$out/stopped.out" 2>"$out/stopped.err" &
client=$!
for _ in $(seq 120); do grep -q '^READY' <(docker logs ipcbench-ci-server 2>/dev/null) && break; sleep 0.5; done
sleep 3 # mid-run
stopped_at=$(date +%s)
docker stop -t 10 ipcbench-ci-server >/dev/null
status=0; wait "$client" || status=$?
took=$(( $(date +%s) - stopped_at ))
[ "$status" -eq 1 ] || { cat "$out/stopped.err" >&2; fail "the client of a stopped server exited $status, not 1"; }
[ "$took" -le 15 ] || fail "the client took $took s to notice its server had stopped"
[ "$(wc -l <"$out/stopped.err")" -eq 1 ] && grep -q '^ipcbench ping: error: ' "$out/stopped.err" \
  || { cat "$out/stopped.err" >&2; fail "the client's error is not one 'ipcbench ping: error:' line"; }
echo "client: $(cat "$out/stopped.err") (after $took s)"
stop_pair
[ -z "$(docker ps -aq)" ] || fail "containers left: $(docker ps -a)"
echo "docker/ci.sh: nothing left behind"

echo "== the VM route (docker/vm.sh --check): the server in a qemu guest, boot, READY, a checked ping, teardown"
engine_stop # the guest is not Docker's; the engine would only compete for the CPUs the emulator needs
timeout 10m docker/vm.sh --check || fail "the VM route failed"

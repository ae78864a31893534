#!/usr/bin/env bash
# The scripts' own checks, without Docker, .NET or Wine: hostile state is planted where the scripts keep theirs and
# where they used to read it (a pid file holding -1, the pid of an unrelated process, another user's folder, a link),
# the scripts run against stand-ins for docker, dotnet, wine, sockperf and apt-get, and every check is that nothing was
# signalled, deleted or overwritten that the script did not make. test.sh's nats-server and redis-server are started
# for real (a password off every command line, a private folder, bounded requests) and must not be fooled by a planted
# state folder or pid file, a foreign server on their port or another user's /run/redis.
# It runs in namespaces of its own (pid, network, mount: a fresh /tmp, /run and VM cache), so that a kill -1, a broker
# on 6379 or a planted folder stays inside them, and everything it started ends with it.
#
#   tests/scripts.sh [TREE]    (root) TREE: the checkout whose scripts are checked, this one by default
#
# One line per check; exit 0 when all pass, 1 when any fails, 2 on bad usage.
set -uo pipefail
[ "$(id -u)" -eq 0 ] || { echo "tests/scripts.sh: needs root (namespaces; run.sh and vm.sh run as root)" >&2; exit 2; }
tree=$(realpath "${1:-$(dirname "$0")/..}")
[ -f "$tree/docker/run.sh" ] || { echo "tests/scripts.sh: $tree is not an IpcBench checkout" >&2; exit 2; }
if [ "${IPCBENCH_SCRIPTS_NAMESPACES:-}" != 1 ] || [ "$$" != 1 ]; then
  # unshare's child is pid 1 of the new namespace: when it ends, the kernel ends every process left in it
  exec unshare --pid --fork --mount-proc --net env IPCBENCH_SCRIPTS_NAMESPACES=1 "$(realpath "$0")" "$tree"
fi
# The scripts under test are copied (to a fresh /run) before /tmp is replaced, and run from the copy beside stand-ins.
T=/run/scripts-test repo=/run/scripts-test/repo bin=/run/scripts-test/bin
mount -t tmpfs -o mode=755 tmpfs /run && mkdir -p "$T/log" "$repo" "$bin" \
  && (cd "$tree" && cp --parents -r test.sh docker/*.sh docker/compose*.yaml benchmarks/*.sh tests/*.sh tests/*/*.csproj tests/windows "$repo/") \
  && mount -t tmpfs -o mode=1777 tmpfs /tmp && mkdir -p /var/lib/ipcbench-vm \
  && mount -t tmpfs -o mode=755 tmpfs /var/lib/ipcbench-vm && ip link set lo up \
  || { echo "tests/scripts.sh: could not make its namespaces" >&2; exit 2; }
unset TMPDIR XDG_RUNTIME_DIR REDISCLI_AUTH IPCBENCH_REDIS_URL IPCBENCH_NATS_URL
printf '#!/bin/sh\nexit 0\n' >"$repo/tests/scripts.sh" # the copied test.sh calls it: not this again

# -- stand-ins, first on PATH; each logs its arguments (never a secret: the brokers' are real, behind a logging wrapper)
# results_json: what ping's --json FILE holds, written when the stand-in's arguments name one
results_json='for ((i = 1; i < $#; i++)); do [ "${!i}" != --json ] || { j=$((i + 1)); echo "{\"cases\": [{\"latency_us\": {\"p50\": 1.0, \"p99\": 2.0, \"mean\": 1.1}, \"requests_per_second\": 9}]}" >"${!j}"; }; done'
stub() { printf '#!/usr/bin/env bash\necho "$(basename "$0") $*" >>%s/log/argv\n%s\n' "$T" "$2" >"$bin/$1"; chmod +x "$bin/$1"; }
for real in redis-cli redis-server nats-server; do stub "$real" "exec $(command -v "$real") \"\$@\""; done
stub docker 'case "$1 ${2:-}" in
  "info --format") echo "ipcbench-runsc runc" ;;
  "inspect -f") echo ipcbench-runsc ;;
esac'
stub docker-compose 'case " $* " in *" up "*) mkdir -p "$IPCBENCH_RESULTS_DIR/r"; set -- --json "$IPCBENCH_RESULTS_DIR/r/results.json"; '"$results_json"' ;; *" ps "*) echo c0ffee ;; esac'
stub dockerd 'exit 1'
stub apt-get 'exit 1'
stub clang 'exit 0'
stub dpkg 'exit 0'
stub service 'exit 0'
stub rabbitmqctl 'exit 0'
stub wineserver 'exit 0'
stub dotnet '[ "$1" != test ] || env >'"$T"'/dotnet.env
[ "${STUB_DOTNET:-0}" = 0 ] || exit 1
for ((i = 1; i < $#; i++)); do [ "${!i}" != -o ] || { j=$((i + 1)); mkdir -p "${!j}"; cp '"$T"'/ipcbench "${!j}/"; }; done # a publish: the stand-in ipcbench'
stub sockperf '[ "$1" = server ] || exit 1 # ping-pong fails
sleep 300 & wait'
stub wine 'case "$1" in
  --version) echo wine-stub ;;
  wineboot) case "${STUB_WINEBOOT:-}" in
      hang) touch '"$T"'/wineboot.hangs; sleep 300 ;;
      fail) echo "err:stub wineboot fails"; exit 1 ;;
      fail-once) [ -e '"$T"'/wineboot.failed ] || { touch '"$T"'/wineboot.failed; echo "err:stub wineboot fails once"; exit 1; } ;;
    esac ;;
  *) case " $* " in
       *" list --json "*) echo '"'"'[{"name": "pipe", "runs": true}, {"name": "grpc-pipe", "runs": true}, {"name": "udp", "runs": true},
         {"name": "mmf", "runs": true}, {"name": "uds", "runs": true}, {"name": "amqp", "runs": false, "not_here": "no broker"}]'"'"' ;;
       *" nonsense "*) echo "ipcbench ping: bad size" >&2; exit 2 ;;
       *" --transport ${STUB_WINE_UNSUPPORTED:-none} "*) echo "ipcbench ping: not supported here: stub" >&2; exit 3 ;;
       *) '"$results_json"' ;;
     esac ;;
esac'
ipcbench_stub='case "$1" in
  list) echo '"'"'[{"name": "tcp", "runs": true, "meets_on": "network", "broker": null, "default_port": 5000, "address_options": [], "trusts_one_certificate": false}]'"'"' ;;
  ping) '"$results_json"' ;;
  merge) echo '"$T"'/merged ;;
  isolations) ;;
esac'
printf '#!/usr/bin/env bash\n%s\n' "$ipcbench_stub" >"$T/ipcbench"; chmod +x "$T/ipcbench"
for dir in docker/app src/IpcBench.Cli/bin/Release/net10.0; do mkdir -p "$repo/$dir"; cp "$T/ipcbench" "$repo/$dir/"; done
export PATH="$bin:$PATH"

# -- checks
failures=0
check() { # WHAT COMMAND...: one line, ok or FAIL
  if "${@:2}"; then echo "ok    $1"; else echo "FAIL  $1"; failures=$((failures + 1)); fi
}
alive() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; s=${s##*) }; [ "${s%% *}" != Z ]; }
execed() { for _ in $(seq 50); do tr '\0' ' ' <"/proc/$1/cmdline" | grep -q "$2" && return; sleep 0.1; done; } # PID WORD
dead_pid() { sh -c 'exit 0' & wait $!; dead=$!; } # a pid that runs nothing (a fresh namespace does not reuse it soon)
settle() { # the scripts under test and what they started from the copy: gone within 30 s, or killed
  local pid
  for _ in $(seq 150); do pgrep -f "$repo/" >/dev/null || return 0; sleep 0.2; done
  for pid in $(pgrep -f "$repo/"); do kill -KILL "$pid" 2>/dev/null; done
}
foreign_dir() { mkdir -p "$1" && chown nobody: "$1"; } # a folder another user made
state=/run/ipcbench
mkdir -m 700 "$state"
own=$repo/docker/own.sh

echo "== docker/own.sh: stop_owned, own_root, own_stale"
sleep 1001 & w1=$!
sleep 1002 & match=$!; execed "$match" 1002
bash -c 'trap "" TERM; while :; do sleep 0.1; done' ignores-sigterm & stubborn=$!; disown
if [ -f "$own" ]; then
  # shellcheck source=/dev/null
  . "$own"
  for bad in -1 0 "" abc "1 $w1" "${w1}x"; do
    check "stop_owned refuses '$bad' and signals nothing" eval '! stop_owned "$bad" sleep 1 2>/dev/null && alive $w1'
  done
  stop_owned "$w1" "sleep 9999" 1
  check "stop_owned leaves a pid whose command line is not the one given" alive "$w1"
  stop_owned "$match" "sleep 1002" 1
  check "stop_owned ends the process whose command line it is given" eval '! alive $match'
  started=$SECONDS; stop_owned "$stubborn" ignores-sigterm 1 2>/dev/null
  check "stop_owned gives a process that ignores SIGTERM its bound, then SIGKILL" eval '! alive $stubborn && [ $((SECONDS - started)) -le 3 ]'
  as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups bash -c ". '$own'; $1"; }
  ln -s /tmp /tmp/ipcbench-65534
  check "own_root refuses a link planted at another user's /tmp/ipcbench-UID" eval '! as_nobody own_root 2>/dev/null'
  rm /tmp/ipcbench-65534; mkdir /tmp/ipcbench-65534
  check "own_root refuses a folder another user made at /tmp/ipcbench-UID" eval '! as_nobody own_root 2>/dev/null'
  rmdir /tmp/ipcbench-65534
  check "own_root makes /tmp/ipcbench-UID 0700, its user's" eval '[ "$(as_nobody own_root)" = /tmp/ipcbench-65534 ] && [ "$(stat -c %U:%a /tmp/ipcbench-65534)" = nobody:700 ]'
  rm -rf /tmp/ipcbench-65534
  dead_pid; mkdir -m 700 "$state/probe-$dead"
  dead_pid; ln -s /tmp "$state/probe-$dead"
  dead_pid; foreign_dir "$state/probe-$dead"; chmod 700 "$state/probe-$dead"
  dead_pid; mkdir -m 755 "$state/probe-$dead"
  bash -c 'exec -a probe sleep 1003' & running=$!; execed "$running" 1003
  mkdir -m 700 "$state/probe-$running" "$state/probe-x"
  check "own_stale gives this user's 0700 folder of a gone pid; refuses a link, another user's, a wider mode, no pid" \
    eval '[ "$(own_stale probe 2>/dev/null | wc -l)" = 1 ] && [ "$(own_stale probe 2>&1 >/dev/null | wc -l)" = 4 ]'
  kill "$running"; rm -rf "$state"/probe-*
else
  check "docker/own.sh is there" false
fi

echo "== docker/run.sh: what a killed run left"
sleep 1011 & w_tmp=$!; sleep 1012 & w_minus=$!; sleep 1013 & w_engine=$!; sleep 1014 & w_other=$!; sleep 1015 & w_foreign=$!
sleep 1016 & w_killed=$!
# The names and files the old run.sh read in /tmp, as any local user could make them
dead_pid; foreign_dir "/tmp/ipcbench-run-$dead-aaaaaa"; echo "$w_tmp" >"/tmp/ipcbench-run-$dead-aaaaaa/child"
dead_pid; foreign_dir "/tmp/ipcbench-run-$dead-bbbbbb"; echo -1 >"/tmp/ipcbench-run-$dead-bbbbbb/child"
dead_pid; foreign_dir "/tmp/ipcbench-run-$dead-cccccc/engine"; echo "$w_engine" >"/tmp/ipcbench-run-$dead-cccccc/engine/dockerd.pid"
# State folders where run.sh keeps them now: ours with a pid running something else, -1, one to sweep; a link; another user's
dead_pid; d_other=$state/run.sh-$dead; mkdir -m 700 "$d_other" && mkdir "$d_other/engine"
printf '%s\nsleep 9999\n' "$w_other" >"$d_other/child"; echo "$w_other" >"$d_other/engine/dockerd.pid"
dead_pid; d_minus=$state/run.sh-$dead; mkdir -m 700 "$d_minus"; printf -- '-1\nsleep\n' >"$d_minus/child"
dead_pid; d_killed=$state/run.sh-$dead; mkdir -m 700 "$d_killed"; printf '%s\nsleep 1016\n' "$w_killed" >"$d_killed/child"
# its engine, killed with it, left a containerd shim (stand-ins: a sleep that names the engine's exec root as a shim does)
mkdir "$d_killed/engine"; echo "$w_killed" >"$d_killed/engine/dockerd.pid"
shim() { exec -a containerd-shim-runc-v2 /usr/bin/python3 -c 'import time; time.sleep(1018)' -namespace moby -address "$1/exec/containerd/containerd.sock"; }
shim "$d_killed/engine" & w_shim=$!; shim /elsewhere & w_shim_other=$!
dead_pid; d_link=$state/run.sh-$dead; mkdir -p /tmp/victim; touch /tmp/victim/mine; ln -s /tmp/victim "$d_link"
dead_pid; d_foreign=$state/run.sh-$dead; foreign_dir "$d_foreign"; chmod 700 "$d_foreign"
printf '%s\nsleep 1015\n' "$w_foreign" >"$d_foreign/child"
IPCBENCH_IMAGE_ROUTE=registry timeout 120 "$repo/docker/run.sh" tcp >"$T/run.out" 2>&1 # the verb a stand-in (IsolationsTests: its pairs)
settle
check "run.sh signals no pid named in a /tmp file any user can write (a sleep)" alive "$w_tmp"
check "run.sh signals no pid -1 named in /tmp (every process would get it)" alive "$w_minus"
check "run.sh signals no engine pid named in /tmp" alive "$w_engine"
check "run.sh leaves the /tmp folders it did not make" eval '[ "$(ls -d /tmp/ipcbench-run-* | wc -l)" = 3 ]'
check "run.sh signals no pid of its state whose command line is not the one it started" alive "$w_other"
check "run.sh stops a killed run's child that still runs what it started" eval '! alive $w_killed'
check "run.sh stops the containerd shim a killed run's engine left" eval '! alive $w_shim'
check "run.sh leaves a containerd shim of another engine" alive "$w_shim_other"
check "run.sh removes the state folders of killed runs" eval '[ ! -e "$d_other" ] && [ ! -e "$d_minus" ] && [ ! -e "$d_killed" ]'
check "run.sh leaves a link in its state folder, and what it points at" eval '[ -L "$d_link" ] && [ -e /tmp/victim/mine ]'
check "run.sh leaves another user's folder and the pid in it" eval '[ -d "$d_foreign" ] && alive $w_foreign'
check "run.sh removes its own work folder" eval '[ "$(ls -d "$state"/run.sh-* | wc -l)" = 2 ]'
kill $w_tmp $w_minus $w_engine $w_other $w_foreign $w_shim_other 2>/dev/null; rm -rf "$d_link" "$d_foreign" /tmp/ipcbench-run-* /tmp/victim

echo "== docker/vm.sh: what a killed run left"
sleep 1021 & w_tmp=$!; sleep 1022 & w_other=$!
dead_pid; foreign_dir "/tmp/ipcbench-vm-$dead-aaaaaa"; echo "$w_tmp" >"/tmp/ipcbench-vm-$dead-aaaaaa/qemu.pid"
dead_pid; d_other=$state/vm.sh-$dead; mkdir -m 700 "$d_other"; echo "$w_other" >"$d_other/qemu.pid"
dead_pid; d_qemu=$state/vm.sh-$dead; mkdir -m 700 "$d_qemu"
bash -c "exec -a 'qemu -netdev tap,id=n0,ifname=ipcbvm$dead,script=no' sleep 1023" & qemu=$!; echo "$qemu" >"$d_qemu/qemu.pid"
bash -c "exec -a 'docker/app/ipcbench vm --owner $dead' sleep 1024" & verb=$!; printf '%s\ndocker/app/ipcbench vm --owner %s\n' "$verb" "$dead" >"$d_qemu/child"
dead_pid; d_link=$state/vm.sh-$dead; mkdir -p /tmp/victim; touch /tmp/victim/mine; ln -s /tmp/victim "$d_link"
timeout 120 "$repo/docker/vm.sh" no-such-transport >"$T/vm.out" 2>&1
settle
check "vm.sh leaves a /tmp folder another user made, and the pid in it" eval '[ -d /tmp/ipcbench-vm-*-aaaaaa ] && alive $w_tmp'
check "vm.sh signals no pid of its state whose command line is not its guest's" alive "$w_other"
check "vm.sh stops a killed run's guest" eval '! alive $qemu'
check "vm.sh stops a killed run's verb that still runs what it started" eval '! alive $verb'
check "vm.sh removes the state folders of killed runs, leaves a link and its own folder" \
  eval '[ ! -e "$d_other" ] && [ ! -e "$d_qemu" ] && [ -L "$d_link" ] && [ -e /tmp/victim/mine ] && [ "$(ls -d "$state"/vm.sh-* | wc -l)" = 1 ]'
kill $w_tmp $w_other 2>/dev/null; rm -rf "$d_link" /tmp/ipcbench-vm-* /tmp/victim

echo "== tests/windows/wine.sh: a killed run's prefix; a Windows row that says 'not supported'"
dead_pid; d_foreign=$state/wine.sh-$dead; foreign_dir "$d_foreign"; chmod 700 "$d_foreign"
dead_pid; d_bulk=$state/wine.sh-$dead; mkdir -m 700 "$d_bulk"; echo /tmp/victim >"$d_bulk/bulk"
foreign_dir /tmp/victim; chmod 700 /tmp/victim; touch /tmp/victim/mine
STUB_WINEBOOT=hang "$repo/tests/windows/wine.sh" >"$T/wine-killed.out" 2>&1 & killed=$!
for _ in $(seq 100); do [ -e "$T/wineboot.hangs" ] && break; sleep 0.1; done
kill -KILL "$killed"; wait "$killed" 2>/dev/null
STUB_DOTNET=1 timeout 60 "$repo/tests/windows/wine.sh" >"$T/wine-next.out" 2>&1
check "the next wine.sh removes what a killed one left (its Wine prefix)" \
  eval '[ -z "$(ls -d /tmp/ipcbench-wine-* 2>/dev/null)" ] && [ "$(ls -d "$state"/wine.sh-* | wc -l)" = 1 ]'
check "wine.sh leaves another user's state folder, and another user's folder its own state names" \
  eval '[ -d "$d_foreign" ] && [ -e /tmp/victim/mine ] && [ ! -e "$d_bulk" ]'
timeout 60 "$repo/tests/windows/wine.sh" >"$T/wine-ok.out" 2>&1
check "wine.sh passes when every row runs (the stand-in works)" test $? -eq 0
STUB_WINEBOOT=fail-once timeout 60 "$repo/tests/windows/wine.sh" >"$T/wine-boot-once.out" 2>&1
check "wine.sh boots Wine once more after a failed wineboot, and shows that boot's log" \
  eval '[ $? -eq 0 ] && grep -q "wineboot exited 1" "$T/wine-boot-once.out" && grep -q "stub wineboot fails once" "$T/wine-boot-once.out"'
STUB_WINEBOOT=fail timeout 60 "$repo/tests/windows/wine.sh" >"$T/wine-boot-fails.out" 2>&1
check "wine.sh fails when wineboot fails twice, and leaves no prefix" \
  eval '[ $? -ne 0 ] && grep -q "wineboot failed twice" "$T/wine-boot-fails.out" && [ -z "$(ls -d /tmp/ipcbench-wine-* 2>/dev/null)" ]'
STUB_WINE_UNSUPPORTED=udp timeout 60 "$repo/tests/windows/wine.sh" >"$T/wine-udp.out" 2>&1
check "wine.sh fails when a row its header says runs (udp) is 'not supported'" \
  eval '[ $? -ne 0 ] && grep -q "udp: not supported" "$T/wine-udp.out"'
pkill -f "$bin/wine wineboot"; rm -rf "$d_foreign" /tmp/victim; settle

echo "== benchmarks/peers.sh, ab.sh, runtimes.sh, keep-gate.sh"
IPCBENCH_DURATION=1s timeout 60 "$repo/benchmarks/peers.sh" >"$T/peers.out" 2>&1
check "peers.sh that fails leaves no sockperf server" eval '! pgrep -f "sockperf server" >/dev/null'
mkdir -p "$T/keep/A"; touch "$T/keep/A/mine"
timeout 60 "$repo/benchmarks/ab.sh" --keep "$T/keep" HEAD HEAD >"$T/ab.out" 2>"$T/ab.err"
check "ab.sh --keep refuses a folder that holds A/ in one line (exit 2), and deletes nothing" \
  eval '[ $? -eq 2 ] && [ -e "$T/keep/A/mine" ] && [ "$(wc -l <"$T/ab.err")" = 1 ] && grep -q -- --keep "$T/ab.err"'
mkdir -p "$T/runtimes/jit"; touch "$T/runtimes/jit/mine"
IPCBENCH_RUNTIMES=$T/runtimes timeout 60 "$repo/benchmarks/runtimes.sh" publish >"$T/runtimes.out" 2>&1
check "runtimes.sh does not replace a folder that is not an ipcbench build" test -e "$T/runtimes/jit/mine"
# keep-gate.sh: a clone whose origin is a bare repository here, and a gate as 'ipcbench keep' leaves one (and a log)
kg=$T/keep-gate; git init -q --bare "$kg/origin.git" && git init -q -b main "$kg/clone"
git -C "$kg/clone" -c user.name=t -c user.email=t@t commit -q --allow-empty -m start && git -C "$kg/clone" remote add origin "$kg/origin.git"
for side in A B; do
  mkdir -p "$kg/gate/$side/tcp-1-round1/run"; echo log >"$kg/gate/$side/tcp-1-round1/stderr.txt"
  echo '{"cases": [{"latency_us": {"p50": 9.8}}]}' >"$kg/gate/$side/tcp-1-round1/run/results.json"
done
echo '{"cases": []}' >"$kg/gate/verdicts.json"; echo '| table |' >"$kg/gate/compare.md"
kept() { git --git-dir="$kg/origin.git" ls-tree -r --name-only ipcbench-history 2>/dev/null; }
head_before=$(git -C "$kg/clone" rev-parse HEAD)
(cd "$kg/clone" && timeout 60 "$repo/benchmarks/keep-gate.sh" "$kg/gate" >"$T/keep-gate.out" 2>&1)
check "keep-gate.sh keeps a gate's results.json, verdicts.json and compare.md in a commit of the history branch, no log" \
  eval '[ $? -eq 0 ] && [ "$(kept | grep -c "^gates/[0-9-]*-[0-9a-f]\{7\}/\(B\|A\)/tcp-1-round1/run/results.json$")" = 2 ] \
    && kept | grep -q "/verdicts.json$" && kept | grep -q "/compare.md$" && ! kept | grep -q stderr.txt'
check "keep-gate.sh leaves the work tree, its index and HEAD as they were" \
  eval '[ -z "$(git -C "$kg/clone" status --porcelain)" ] && [ "$(git -C "$kg/clone" rev-parse HEAD)" = "$head_before" ]'
sleep 1; (cd "$kg/clone" && timeout 60 "$repo/benchmarks/keep-gate.sh" "$kg/gate" >/dev/null 2>&1)
check "a second keep-gate.sh adds its gate to the branch's history, the first one kept" \
  eval '[ "$(git --git-dir="$kg/origin.git" rev-list --count ipcbench-history)" = 2 ] && [ "$(kept | grep -c /verdicts.json)" = 2 ]'
ln -s /etc/passwd "$kg/gate/B/tcp-1-round1/run/compare.md"
(cd "$kg/clone" && timeout 60 "$repo/benchmarks/keep-gate.sh" "$kg/gate" >/dev/null 2>"$T/keep-gate.err")
check "keep-gate.sh refuses a gate that holds a link in one line (exit 2), and pushes nothing" \
  eval '[ $? -eq 2 ] && [ "$(wc -l <"$T/keep-gate.err")" = 1 ] && [ "$(git --git-dir="$kg/origin.git" rev-list --count ipcbench-history)" = 2 ]'
settle

echo "== test.sh's brokers"
brokers() { (cd "$repo" && timeout 120 ./test.sh >"$T/test.out" 2>"$T/test.err"); }
redis() { timeout 5 redis-cli --raw "$@" 2>/dev/null; }
nats_says() { # CONNECT-JSON: what the nats-server answers a PING after it
  ( exec 3<>/dev/tcp/127.0.0.1/4222 && read -r -t 2 info <&3 && printf '%s\r\nPING\r\n' "CONNECT $1" >&3 && read -r -t 2 reply <&3 \
    && echo "$info ${reply%$'\r'}" ) 2>/dev/null
}
brokers
check "test.sh starts its brokers (exit 0)" eval '[ $? -eq 0 ] || { cat "$T/test.err"; false; }'
password=$(sed -n 's|^IPCBENCH_REDIS_URL=redis://:\([0-9a-f]\{32\}\)@127\.0\.0\.1:6379$|\1|p' "$T/dotnet.env" 2>/dev/null)
check "dotnet test gets IPCBENCH_REDIS_URL with a password" test -n "$password"
check "dotnet test gets IPCBENCH_NATS_URL with the same password" grep -qx "IPCBENCH_NATS_URL=nats://ipcbench:$password@127.0.0.1:4222" "$T/dotnet.env"
check "redis-server refuses a client without the password (TCP)" eval '[[ "$(redis -h 127.0.0.1 -p 6379 PING)" == NOAUTH* ]]'
check "redis-server refuses a client without the password (its socket)" eval '[[ "$(redis -s /run/redis/redis-server.sock PING)" == NOAUTH* ]]'
check "redis-server answers with the password" eval '[ "$(REDISCLI_AUTH=$password redis -h 127.0.0.1 -p 6379 PING)" = PONG ]'
config() { REDISCLI_AUTH=$password redis -h 127.0.0.1 -p 6379 CONFIG GET "$1" | sed -n 2p; }
check "redis-server keeps its files in the private state folder" eval '[ "$(config dir)" = "$state/brokers" ] && [ "$(stat -c %a "$state/brokers")" = 700 ]'
check "redis-server bounds a request: bulk <= 2 MiB, query buffer <= 32 MiB, clients <= 1000" \
  eval '[ "$(config proto-max-bulk-len)" -le 2097152 ] && [ "$(config client-query-buffer-limit)" -le 33554432 ] && [ "$(config maxclients)" -le 1000 ]'
check "nats-server refuses a client without the password" eval '[[ "$(nats_says "{\"verbose\":false}")" == *"\"auth_required\":true"*"Authorization Violation"* ]]'
check "nats-server answers with the password, and bounds a message at 1 MiB" \
  eval '[[ "$(nats_says "{\"verbose\":false,\"user\":\"ipcbench\",\"pass\":\"$password\"}")" == *"\"max_payload\":1048576"*PONG ]]'
check "nats-server's configuration bounds what a connection may have pending (32 MiB) and the connections (1000)" \
  eval 'grep -qx "max_pending: 33554432" "$state/brokers/nats.conf" && grep -qx "max_connections: 1000" "$state/brokers/nats.conf"'
command_lines() { local pid; cat "$T/log/argv"; for pid in /proc/[0-9]*; do tr '\0' ' ' 2>/dev/null <"$pid/cmdline"; echo; done; }
check "the password is on no command line (the brokers', redis-cli's, any process's now)" eval '[[ "$(command_lines)" != *"$password"* ]]'
check "the password, configuration, pid and log files are not in /tmp, and the secrets are 0600" \
  eval '[ -z "$(ls /tmp)" ] && [ "$(stat -c %a "$state/brokers/password" "$state/brokers/redis.conf" "$state/brokers/nats.conf" | sort -u)" = 600 ]'
brokers
check "a second test.sh keeps the brokers and finds the password again" \
  eval '[ $? -eq 0 ] && ! grep -q "starting" "$T/test.out" && grep -qx "IPCBENCH_REDIS_URL=redis://:$password@127.0.0.1:6379" "$T/dotnet.env"'

echo "== tests/leftovers.sh, with the password of test.sh's redis-server"
REDISCLI_AUTH=$password timeout 60 redis-cli SUBSCRIBE ipcbench-scripts-test >/dev/null & subscriber=$!
sleep 0.5
dead_pid; mkdir -m 700 "$state/run.sh-$dead"
left=$(cd / && "$repo/tests/leftovers.sh" list 2>&1)
check "leftovers.sh lists a Redis channel of test.sh's redis-server" grep -qx "redis-channel ipcbench-scripts-test" <<<"$left"
check "leftovers.sh lists a state folder a script left" grep -qx "state $state/run.sh-$dead" <<<"$left"
check "leftovers.sh does not count test.sh's brokers as left behind" eval '! grep -q "nats-server\|brokers" <<<"$left"'
check "leftovers.sh gives redis-cli no password on its command line" eval '[[ "$(command_lines)" != *"$password"* ]]'
kill "$subscriber"; rm -rf "$state/run.sh-$dead"

echo "== test.sh's brokers: a planted pid file, a foreign server, another user's /run/redis, a planted state folder"
stop_broker() { pkill -KILL -x "$1"; for _ in $(seq 50); do ! pgrep -x "$1" >/dev/null && return; sleep 0.1; done; } # ours: a pid namespace
sleep 1031 & w_redis=$!; sleep 1032 & w_nats=$!
stop_broker redis-server; stop_broker nats-server
[ ! -d "$state/brokers" ] || { echo "$w_redis" >"$state/brokers/redis-server.pid"; echo "$w_nats" >"$state/brokers/nats-server.pid"; }
brokers
check "test.sh restarts its brokers, and signals no pid of a pid file that is not a broker's" \
  eval '[ $? -eq 0 ] && alive $w_redis && alive $w_nats && [ "$(REDISCLI_AUTH=$password redis -h 127.0.0.1 PING)" = PONG ]'
kill $w_redis $w_nats
stop_broker redis-server
timeout 5 redis-server --bind 127.0.0.1 --port 6379 --save '' --appendonly no --daemonize yes >/dev/null
for _ in $(seq 50); do [ "$(redis -h 127.0.0.1 PING)" = PONG ] && break; sleep 0.1; done
brokers
check "test.sh refuses a redis-server it did not start on 6379 in one line, and leaves it running" \
  eval '[ $? -ne 0 ] && [ "$(wc -l <"$T/test.err")" = 1 ] && grep -q 6379 "$T/test.err" && [ "$(redis -h 127.0.0.1 PING)" = PONG ] \
    || { sed "s/^/      /" "$T/test.err"; false; }'
stop_broker redis-server
rm -rf /run/redis; foreign_dir /run/redis
brokers
check "test.sh leaves another user's /run/redis as it was, in one line" \
  eval '[ $? -ne 0 ] && [ "$(stat -c %U /run/redis)" = nobody ] && [ "$(wc -l <"$T/test.err")" = 1 ] && grep -q /run/redis "$T/test.err" \
    || { sed "s/^/      /" "$T/test.err"; false; }'
rm -rf /run/redis
stop_broker nats-server
rm -rf "$state/brokers"; mkdir -p /tmp/planted; echo 00000000000000000000000000000000 >/tmp/planted/password
ln -s /tmp/planted "$state/brokers"
brokers
check "test.sh refuses a link planted as its state folder, and starts no broker" \
  eval '[ $? -ne 0 ] && grep -q "$state/brokers" "$T/test.err" && ! pgrep -x redis-server >/dev/null && ! pgrep -x nats-server >/dev/null'
rm "$state/brokers"; foreign_dir "$state/brokers"; chmod 700 "$state/brokers"; cp /tmp/planted/password "$state/brokers/"
brokers
check "test.sh refuses another user's state folder, and starts no broker" \
  eval '[ $? -ne 0 ] && grep -q "$state/brokers" "$T/test.err" && ! pgrep -x redis-server >/dev/null && ! pgrep -x nats-server >/dev/null'
settle

echo "tests/scripts.sh: $failures check(s) failed"
[ "$failures" -eq 0 ]

#!/usr/bin/env bash
# The Windows code paths, run on Linux under Wine: a self-contained win-x64 publish of the CLI, then 'list' and a short
# ping of every transport that runs on Windows (real Windows named pipes for pipe, grpc-pipe and jsonrpc; mmf's
# Windows waits in each mode; the network transports), every reply checked by ping itself. Wine is not Windows: its
# pipes and events go through wineserver, so this proves function, never figures, and none is published from it.
# A figure is checked only where it tells a code path apart: mmf's block mode must end its waits on a wake-up, not on
# a timer tick (1 ms or more), so its p50 must be well under a millisecond.
#
#   tests/windows/wine.sh            (root, or Wine installed; called by .ci/run)
#
# The rows are what the Windows build's 'list --json' says runs, so a new transport is a row without an edit here. What
# does not run under Wine, or not here, is listed with the reason, not skipped in silence; every other row must run ("not
# supported" from one is a failure). A crash of the runtime (an exit code that is none of ipcbench's, or the CLR's own
# message) is told apart from a bad option (exit 2, 'ipcbench ping:' line). Leaves nothing: the Wine prefix, the
# publish and wineserver go when it ends, also when interrupted; what a wine.sh killed by SIGKILL left goes when the
# next one starts (its private state folder, docker/own.sh: /run/ipcbench/wine.sh-PID as root, names them).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS

packages="wine64" # .ci/run reads this line: it installs them while its tests run
if ! command -v wine >/dev/null; then
  [ "$(id -u)" -eq 0 ] || { echo "wine.sh: Wine is missing and installing it needs root (apt-get install $packages)" >&2; exit 1; }
  echo "== installing $packages"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages >/dev/null
fi

. docker/own.sh
. tests/brokers.sh
. benchmarks/figures.sh
brokers_env # test.sh's nats-server and redis-server, when they run: their rows need the password (it stays off command lines)
remove_bulk() { # STATE: the folder mktemp made a killed run (STATE/bulk names it), while still its user's; its Wine first
  local bulk
  bulk=$(cat "$1/bulk" 2>/dev/null) && own_private "$bulk" || return 0
  WINEPREFIX=$bulk/prefix timeout 20 wineserver -k >/dev/null 2>&1 || true # ends that prefix's Wine processes
  rm -rf "$bulk"
}
own_sweep wine.sh remove_bulk
work=$(own_dir "wine.sh-$$")
# The prefix and the publish (near 1 GB) go to the temp directory, not to the state folder's file system (often a small
# tmpfs); the state folder says where, for the next run if this one is killed.
bulk=$(mktemp -d "${TMPDIR:-/tmp}/ipcbench-wine-XXXXXX")
echo "$bulk" >"$work/bulk"
export WINEPREFIX="$bulk/prefix" WINEDEBUG=-all
# Without it the CLR's W^X double mapping breaks under Wine: 7 of 11 grpc-pipe runs died with "Internal CLR error
# (0x80131506)" in DynamicResolver+DestroyScout.Finalize.
export DOTNET_EnableWriteXorExecute=0 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
cleanup() {
  status=$?
  trap - EXIT INT TERM
  kill $(jobs -p) 2>/dev/null || true # rows still under way (their Wine processes end with the prefix's wineserver)
  timeout 20 wineserver -k >/dev/null 2>&1 || true # ends every Wine process of this prefix
  rm -rf "$work" "$bulk"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "wine.sh: $*" >&2; exit 1; }

echo "== Wine: $(wine --version); a fresh prefix"
# wineboot makes the prefix. Its errors are kept (WINEDEBUG=err+all), not the -all the runs get: a CI run once saw it fail
# in 2 s and say nothing. A failed boot is told with its exit code and log, then tried once more in a new prefix, since
# that is Wine's setup and not a code path of IpcBench's; a second failure fails the run.
boot() {
  local status=0
  WINEDEBUG=err+all timeout 120 wine wineboot --init >"$work/wineboot.log" 2>&1 || status=$?
  [ "$status" -eq 0 ] && return 0
  echo "wine.sh: wineboot exited $status; its log ends:" >&2
  tail -n 20 "$work/wineboot.log" >&2
  return 1
}
if ! boot; then
  timeout 20 wineserver -k >/dev/null 2>&1 || true
  rm -rf "$WINEPREFIX"
  echo "== wineboot once more, in a new prefix"
  boot || fail "wineboot failed twice"
fi

echo "== dotnet publish -r win-x64 --self-contained"
dotnet publish src/IpcBench.Cli -c Release -r win-x64 --self-contained -o "$bulk/app" -v quiet -nologo
exe="$bulk/app/ipcbench.exe"

# ipcbench ARGS...: the Windows CLI under Wine, bounded; its stdout and stderr in $io.out and $io.err (a row sets io).
io=$work/main
ipcbench() { timeout 180 wine "$exe" "$@" >"$io.out" 2>"$io.err"; }

# What Wine cannot do, and why; each is a Windows path Wine lacks, not one IpcBench lacks.
declare -A unable=(
  [tcp-tls]="Wine's TLS (schannel over GnuTLS) fails the handshake with 0x80090029 (SEC_E_ALGORITHM_MISMATCH)"
  [grpc-tls]="Wine's TLS (schannel over GnuTLS) fails the handshake with 0x80090029 (SEC_E_ALGORITHM_MISMATCH)"
  [uds]="Wine gives Windows programs no AF_UNIX sockets"
  [grpc-uds]="Wine gives Windows programs no AF_UNIX sockets"
  [redis-uds]="Wine gives Windows programs no AF_UNIX sockets"
  [wcf]="its host is a .NET Framework program, which Wine runs only with Wine Mono (not in Debian); the Windows runner job runs it"
  [zmq-libzmq]="no libzmq.dll for Windows here (Debian's libzmq is Linux's)"
)
echo "== list: the Windows rows"
ipcbench list --json || { cat "$io.err" >&2; fail "'ipcbench.exe list --json' failed"; }
# Every transport the Windows build says runs is a row that must run (mmf once per wait mode), but for what Wine cannot
# do; what it says does not run is printed with its reason. Named pipes under grpc-pipe run only on Windows: a list
# without it is not the Windows code path.
mapfile -t rows < <(python3 - "$io.out" "${!unable[@]}" <<'PY'
import json, sys
transports, unable = json.load(open(sys.argv[1])), set(sys.argv[2:])
for t in transports:
    if t["name"] in unable: continue
    if not t["runs"]: print(f"   {t['name']}: not run: 'list' says: {t['not_here']}", file=sys.stderr); continue
    print(*([f"mmf --wait {w}" for w in ("spin", "hybrid", "block")] if t["name"] == "mmf" else [t["name"]]), sep="\n")
PY
)
for transport in pipe grpc-pipe; do
  [[ " ${rows[*]} " == *" $transport "* ]] || fail "'list --json' does not say that $transport runs here: ${rows[*]}"
done
for transport in "${!unable[@]}"; do echo "   $transport: not run under Wine: ${unable[$transport]}"; done

# ping_wine_retrying ARGS...: 'ipcbench ping ARGS', once more when Wine failed to create the server's process. Wine's
# CreateProcess now and then fails a child that dies in its own start-up (STATUS_INTERNAL_ERROR, which .NET reports as
# "Internal error."): seen once in ~20 server starts on a CI machine, never in 52 here. Wine's, not the path under
# test, so one retry, said aloud.
ping_wine_retrying() {
  local status=0
  ipcbench ping "$@" || status=$?
  if [ "$status" -eq 1 ] && grep -q 'could not start the .* server .*Internal error' "$io.err"; then
    echo "   $2: Wine did not start the server process (\"Internal error.\"); once more"
    status=0; ipcbench ping "$@" || status=$?
  fi
  return "$status"
}

# latency_of: "p50 X p99 Y" (us) of the last ping's --json, or nothing when it wrote none
latency_of() {
  [ -s "$io.json" ] && figures "$io.json" 'p50 {p50} p99 {p99}'
}

# row_result ok|failed TEXT: the line of the row ping_row runs (its io and name)
row_result() { echo "$1: $name: $2" >"$io.result"; }

# ping_row N TRANSPORT [OPTIONS...]: row N's checked ping; what came of it, one line, in $work/row-N.result: "ok: ..."
# or "failed: ..." (rows run side by side, so each has files of its own).
ping_row() {
  local io=$work/row-$1 status=0
  shift
  local name="$*"
  ping_wine_retrying --transport "$@" --count 300 --warmup 30 --timeout 10s --placement none --no-results --json "$io.json" || status=$?
  case $status in
    0) local figures
       figures=$(latency_of) && row_result ok "$figures" || row_result failed "no figures" ;;
    3) row_result failed "not supported: $(tail -n 1 "$io.err")" ;;
    1|2|130) row_result failed "exit $status: $(grep -m1 '^ipcbench' "$io.err" || tail -n 1 "$io.err")" ;;
    124) row_result failed "still running after 180 s" ;;
    *) # none of ipcbench's exit codes: the runtime itself died (or Wine did)
       row_result failed "the runtime crashed (exit $status): $(grep -m1 -E 'CLR|Unhandled|fault|exception' "$io.err" || tail -n 1 "$io.err")" ;;
  esac
  if grep -q 'Internal CLR error\|Unhandled exception' "$io.err"; then
    row_result failed "the runtime reported a crash: $(grep -m1 'Internal CLR error\|Unhandled exception' "$io.err")"
  fi
}
# Four rows at a time: a row mostly waits on Wine's process start and wineserver (the CPUs were 30-68% idle with one,
# 0-10% with four). The rows are not figures, so --placement none: at ping's default, same-core, every row's processes
# would start and compile on CPU 0 alone. wine.sh took 208 s in all with two rows at a time, 158 s with four.
echo "== ping, the Windows rows, four at a time (every reply checked)"
for i in "${!rows[@]}"; do
  [ "$(jobs -pr | wc -l)" -lt 4 ] || wait -n || true
  read -ra args <<<"${rows[$i]}"
  ping_row "$i" "${args[@]}" &
done
wait
failures=()
for i in "${!rows[@]}"; do
  line=$(cat "$work/row-$i.result" 2>/dev/null) || line="failed: ${rows[$i]}: ended without a result"
  case $line in ok:*) echo "   ${line#ok: }" ;; *) failures+=("${line#failed: }") ;; esac
done

echo "== mmf's block mode wakes on an event, not on a timer tick"
status=0; ping_wine_retrying --transport mmf --wait block --count 2000 --warmup 200 --timeout 10s --no-results --json "$io.json" || status=$?
[ "$status" -eq 0 ] || { cat "$io.err" >&2; fail "mmf block: exit $status"; }
p50=$(latency_of | cut -d' ' -f2)
echo "   mmf block p50 $p50 us (under Wine; a 1 ms timer step would read 1,000 us or more)"
awk -v p="$p50" 'BEGIN { exit !(p > 0 && p < 800) }' || failures+=("mmf block: p50 $p50 us: its waits end on a timer, not a wake-up")

echo "== the wrong option: exit 2 and a usage line, not a crash"
status=0; ipcbench ping --transport tcp --size nonsense --no-results || status=$?
[ "$status" -eq 2 ] && grep -q '^ipcbench ping: ' "$io.err" || failures+=("a bad option: exit $status, not 2 with an 'ipcbench ping:' line")

if [ ${#failures[@]} -gt 0 ]; then
  printf '   %s\n' "${failures[@]}" >&2
  fail "${#failures[@]} Windows path(s) failed under Wine"
fi
echo "wine.sh: every Windows row ran under Wine in $((SECONDS - started)) s; nothing from here is a figure"

#!/usr/bin/env bash
# The server in a virtual machine of its own, the Linux analogue of a Hyper-V-isolated container: readies what the guest
# is made of (qemu, Debian's kernel, busybox, a self-contained publish), then runs 'ipcbench vm', which boots a qemu guest
# (an initramfs holding busybox, the self-contained ipcbench and docker/vm/init) whose init starts 'ipcbench serve' for
# each transport, waits for their READY lines on the guest's serial console, measures each with 'ipcbench ping' from the
# host over a tap device on a link-local /30 (host 169.254.79.1, guest 169.254.79.2), then stops the guest and removes
# the tap. The guest is built once per recipe and kept in /var/lib/ipcbench-vm.
#
#   docker/vm.sh [--check] [TRANSPORT...]   default: tcp; a transport that crosses a network (cross-host in
#                                           'ipcbench list'), brokered ones and wcf (Mono) aside
#   --check    CI's short proof of the route: 1 B, 200 requests after 20 warm-up; prints the boot time, the ping line and
#              the whole cycle's time, and checks that the guest and its tap are gone afterwards
#
# Label: vm when the guest runs under KVM, vm-emulated under TCG (qemu's emulator: no nested virtualisation). An
# emulated machine's figures are an emulator's, never a VM's: every figure is printed with its label, and the run
# folder's cases carry it (isolation=LABEL, as docker/run.sh's pairs carry theirs), so that it travels with them.
#
# Variables: IPCBENCH_VM_ACCEL (auto: kvm when /dev/kvm boots the guest within 30 s, else tcg; kvm; tcg),
# IPCBENCH_SIZES (1,100KB; --check: 1), IPCBENCH_COUNT (20000), IPCBENCH_WARMUP (1000), IPCBENCH_RESULTS (results/;
# --check writes no run folder unless it is set), IPCBENCH_VM_BOOT_TIMEOUT (300 s: until every server is READY).
# Needs root, /dev/net/tun, qemu-system-x86, linux-image-amd64 and busybox (installed from the package mirror when
# missing), and the .NET SDK unless docker/app (build-offline.sh's publish) is newer than the sources.
# Exit codes: 0 done; 1 failed (the console's tail on stderr); 2 bad usage; 3 not supported here (why, on stderr).
# Removes the guest, the tap and its work folder when it ends, also when interrupted; and, when it starts, whatever
# a vm.sh killed by SIGKILL left. The work folder is a private state folder (docker/own.sh: /run/ipcbench/vm.sh-PID).
set -euo pipefail
cd "$(dirname "$0")/.."

verb=(vm)
for arg in "$@"; do
  case "$arg" in
    --check) verb+=(--check) ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "vm.sh: unknown option '$arg' (--check)" >&2; exit 2 ;;
    *) verb+=("$arg") ;;
  esac
done
[ -z "${IPCBENCH_RESULTS:-}" ] || verb+=(--results "$(realpath -m "$IPCBENCH_RESULTS")")
for pair in SIZES:sizes COUNT:count WARMUP:warmup VM_ACCEL:accel VM_BOOT_TIMEOUT:boot-timeout; do
  variable=IPCBENCH_${pair%%:*}
  [ -z "${!variable:-}" ] || verb+=("--${pair#*:}" "${!variable}")
done

cache=/var/lib/ipcbench-vm
unsupported() { echo "vm.sh: not supported here: $*" >&2; exit 3; }
fail() { echo "vm.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || unsupported "needs root (a tap device, the cache in $cache)"
[ -c /dev/net/tun ] || unsupported "no /dev/net/tun: no tap device for the guest's network"
command -v ip >/dev/null || unsupported "ip is missing (apt-get install iproute2)"

# -- the work folder, and what the trap removes
. docker/own.sh
mkdir -p "$cache"
work=$(own_dir "vm.sh-$$") # the pid names whose it is, for the next run if this one is killed
cleanup() { # the verb (on SIGTERM it stops its guest and removes its tap), then what a killed verb left
  local status=$?
  trap - EXIT INT TERM
  own_stop_child "$work" 30
  stop_guest "$work" $$
  rm -rf "$work" "$cache/.building-$$" "$cache/.app-$$"
  exit "$status"
}
stop_guest() { # STATE OWNER: the qemu STATE/qemu.pid names, while it runs on the owner's tap; the tap
  [ ! -s "$1/qemu.pid" ] || stop_owned "$(<"$1/qemu.pid")" "ifname=ipcbvm$2," 10 || true
  ! ip link show "ipcbvm$2" >/dev/null 2>&1 || ip link del "ipcbvm$2" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# What a vm.sh killed by SIGKILL left: its verb, its guest, its tap and its work folder. The verb, when it starts, removes
# the taps and half-built cache entries of a vm.sh that is gone.
own_sweep vm.sh stop_guest

# -- one vm.sh at a time: each uses the same /30 and the same cache. flock runs in the background so that a signal is
# not held up by it; the lock is the open file's, so it stays once flock has ended. The verb and qemu do not inherit it.
exec 9>"$cache/lock"
if ! flock -n 9; then
  echo "== waiting for another vm.sh (10 minutes at most)"
  own_background "$work" flock -w 600 9 || fail "another vm.sh held $cache/lock for 10 minutes"
fi

# -- what the guest is made of: packages from the mirror when they are missing. The list names the packages of the
# checks below it; .ci/run reads it and installs them while its tests run.
packages="qemu-system-x86 linux-image-amd64 busybox"
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
compgen -G '/boot/vmlinuz-*' >/dev/null && compgen -G '/lib/modules/*/modules.dep' >/dev/null || missing+=(linux-image-amd64)
command -v busybox >/dev/null || missing+=(busybox)
if [ ${#missing[@]} -gt 0 ]; then # in the foreground: an interrupted dpkg would leave the system half-configured
  echo "== installing ${missing[*]} (the package mirror)"
  { apt-get -o DPkg::Lock::Timeout=300 update -q && DEBIAN_FRONTEND=noninteractive \
      apt-get -o DPkg::Lock::Timeout=300 install -y -q "${missing[@]}"; } >"$work/apt.log" 2>&1 \
    || { tail -n 5 "$work/apt.log" >&2; unsupported "could not install ${missing[*]}"; }
fi

# -- the app, for the guest and as the host's client: docker/app when it is newer than the sources, else a publish of
# our own kept in the cache (the SDK's other builds may be under way: a self-contained publish is a copy they leave alone)
sources=(src transports Directory.Build.props Directory.Packages.props global.json)
fresh() { # DIR: it holds ipcbench and no source is newer than it
  [ -x "$1/ipcbench" ] || return 1
  [ -z "$(find "${sources[@]}" -newer "$1" -type f -not -path '*/bin/*' -not -path '*/obj/*' -print -quit 2>/dev/null)" ]
}
app=docker/app
if ! fresh "$app"; then
  app=$cache/app
  if ! fresh "$app"; then
    command -v dotnet >/dev/null || unsupported "docker/app is missing or older than the sources, and there is no .NET SDK to publish it"
    echo "== dotnet publish: self-contained, linux-x64 (for the guest)"
    own_background "$work" dotnet publish src/IpcBench.Cli -c Release -r linux-x64 --self-contained -o "$cache/.app-$$" \
      -v quiet -nologo -nodeReuse:false -p:UseSharedCompilation=false >"$work/publish.log" 2>&1 \
      || { tail -n 20 "$work/publish.log" >&2; fail "dotnet publish failed"; }
    rm -rf "$app"; mv "$cache/.app-$$" "$app"; touch "$app" # its time is the publish's, for fresh()
  fi
fi

# -- the guest, its servers and their measurements: the verb, from the app the guest gets (the same build on both sides)
own_background "$work" "$(realpath "$app")/ipcbench" "${verb[@]}" --owner $$ --state "$work" --cache "$cache" 9>&-

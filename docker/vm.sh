#!/usr/bin/env bash
# The server in a virtual machine of its own, the Linux analogue of a Hyper-V-isolated container: boots a qemu guest
# (Debian's kernel and an initramfs holding busybox, the self-contained ipcbench and docker/vm/init) whose init starts
# 'ipcbench serve' for each transport, waits for their READY lines on the guest's serial console, measures each with
# 'ipcbench ping' from the host over a tap device on a link-local /30 (host 169.254.79.1, guest 169.254.79.2), then
# stops the guest and removes the tap. The guest is built once per recipe and kept in /var/lib/ipcbench-vm.
#
#   docker/vm.sh [--check] [TRANSPORT...]   default: tcp; a transport that crosses a network (cross-host in
#                                           'ipcbench list'), brokered ones and wcf (Mono) aside
#   --check    CI's short proof of the route: 1 B, 200 requests after 20 warm-up; prints the boot time, the ping line and
#              the whole cycle's time, and checks that the guest, the tap and the work folder are gone afterwards
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
started=$SECONDS

check=no transports=()
for arg in "$@"; do
  case "$arg" in
    --check) check=yes ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "vm.sh: unknown option '$arg' (--check)" >&2; exit 2 ;;
    *) transports+=("$arg") ;;
  esac
done
[ ${#transports[@]} -gt 0 ] || transports=(tcp)
if [ "$check" = yes ]; then
  sizes=1 count=200 warmup=20
else
  sizes=${IPCBENCH_SIZES:-1,100KB} count=${IPCBENCH_COUNT:-20000} warmup=${IPCBENCH_WARMUP:-1000}
fi
results=""
[ "$check" = yes ] && [ -z "${IPCBENCH_RESULTS:-}" ] || results=$(realpath -m "${IPCBENCH_RESULTS:-results}")
accel=${IPCBENCH_VM_ACCEL:-auto}
boot_timeout=${IPCBENCH_VM_BOOT_TIMEOUT:-300}
case "$accel" in auto|kvm|tcg) ;; *) echo "vm.sh: IPCBENCH_VM_ACCEL must be auto, kvm or tcg, not '$accel'" >&2; exit 2 ;; esac
[[ "$boot_timeout" =~ ^[0-9]+$ ]] || { echo "vm.sh: IPCBENCH_VM_BOOT_TIMEOUT is a number of seconds" >&2; exit 2; }

cache=/var/lib/ipcbench-vm
host_ip=169.254.79.1 guest_ip=169.254.79.2 # link-local, as every network IpcBench makes; clear of Docker's and netns's
tap=ipcbvm$$                               # at most 15 characters; the pid says whose it is
first_port=5000
unsupported() { echo "vm.sh: not supported here: $*" >&2; exit 3; }
fail() { echo "vm.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || unsupported "needs root (a tap device, the cache in $cache)"
[ -c /dev/net/tun ] || unsupported "no /dev/net/tun: no tap device for the guest's network"
[ "$accel" != kvm ] || { [ -r /dev/kvm ] && [ -w /dev/kvm ]; } || unsupported "IPCBENCH_VM_ACCEL=kvm, but /dev/kvm is missing or not writable"
command -v ip >/dev/null || unsupported "ip is missing (apt-get install iproute2)"

# -- the work folder, and what the trap removes
. docker/own.sh
. docker/transports.sh
mkdir -p "$cache"
work=$(own_dir "vm.sh-$$") # the pid names whose it is, for the next run if this one is killed
qemu_pid="" child="" child_command="" tap_made=no
# Long commands run in the background and are waited for: bash runs a trap only once the foreground command ends, and
# a wait ends at once on a signal.
in_background() { "$@" & child=$! child_command="$*"; wait "$child"; local status=$?; child=""; return "$status"; }
stop_qemu() { stop_owned "$qemu_pid" "ifname=$tap," 10 || true; wait "$qemu_pid" 2>/dev/null || true; qemu_pid=""; }
teardown() { # idempotent: the guest, then its tap, then the work folder and any half-built cache entry
  [ -z "$qemu_pid" ] || stop_qemu
  if [ "$tap_made" = yes ]; then ip link del "$tap" 2>/dev/null || true; tap_made=no; fi
  rm -rf "$work" "$cache/.building-$$" "$cache/.app-$$"
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$child" ]; then stop_owned "$child" "$child_command" 10 || true; wait "$child" 2>/dev/null || true; fi
  teardown
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# -- what a vm.sh killed by SIGKILL left (no trap ran in it): its guest, its work folder (only state folders of this
# user's: own_stale), its half-built cache entries, its tap
sweep() {
  local stale owner dirs
  mapfile -t dirs < <(own_stale vm.sh)
  for stale in "${dirs[@]}"; do
    owner=${stale##*-}
    echo "== removing what vm.sh $owner left (it was killed)"
    [ ! -s "$stale/qemu.pid" ] || stop_owned "$(<"$stale/qemu.pid")" "ifname=ipcbvm$owner," 10 || true
    rm -rf "$stale"
  done
  for stale in "$cache"/.building-* "$cache"/.app-*; do
    owner=${stale##*-}
    [ -e "$stale" ] && ! own_alive "$owner" vm.sh || continue
    rm -rf "$stale"
  done
  for stale in $(ip -o link show 2>/dev/null | grep -o ': ipcbvm[0-9]*[:@]' | tr -d ':@ '); do
    owner=${stale#ipcbvm}
    own_alive "$owner" vm.sh || { echo "== removing the tap $stale (vm.sh $owner is gone)"; ip link del "$stale" 2>/dev/null || true; }
  done
}
sweep

# -- one vm.sh at a time: each uses the same /30 and the same cache. flock runs in the background so that a signal is
# not held up by it; the lock is the open file's, so it stays once flock has ended. qemu and the rest do not inherit it.
exec 9>"$cache/lock"
if ! flock -n 9; then
  echo "== waiting for another vm.sh (10 minutes at most)"
  in_background flock -w 600 9 || fail "another vm.sh held $cache/lock for 10 minutes"
fi

# -- what the guest is made of: packages from the mirror when they are missing
install_packages() { # PACKAGE...: apt-get, in the foreground (an interrupted dpkg would leave the system half-configured)
  echo "== installing $* (the package mirror)"
  { apt-get -o DPkg::Lock::Timeout=300 update -q && DEBIAN_FRONTEND=noninteractive \
      apt-get -o DPkg::Lock::Timeout=300 install -y -q "$@"; } >"$work/apt.log" 2>&1 \
    || { tail -n 5 "$work/apt.log" >&2; unsupported "could not install $*"; }
}
newest_kernel() { # the newest /boot/vmlinuz-VERSION that has /lib/modules/VERSION: its VERSION
  local kernel version
  for kernel in $(ls /boot/vmlinuz-* 2>/dev/null | sort -rV); do
    version=${kernel#/boot/vmlinuz-}
    [ -d "/lib/modules/$version" ] && { echo "$version"; return 0; }
  done
  return 1
}
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
newest_kernel >/dev/null || missing+=(linux-image-amd64)
command -v busybox >/dev/null || missing+=(busybox)
[ ${#missing[@]} -eq 0 ] || install_packages "${missing[@]}"
kernel_version=$(newest_kernel) || unsupported "no /boot/vmlinuz-* with its /lib/modules (linux-image-amd64)"

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
    in_background dotnet publish src/IpcBench.Cli -c Release -r linux-x64 --self-contained -o "$cache/.app-$$" \
      -v quiet -nologo -nodeReuse:false -p:UseSharedCompilation=false >"$work/publish.log" 2>&1 \
      || { tail -n 20 "$work/publish.log" >&2; fail "dotnet publish failed"; }
    rm -rf "$app"; mv "$cache/.app-$$" "$app"; touch "$app" # its time is the publish's, for fresh()
  fi
fi
app=$(realpath "$app")
cli=$app/ipcbench

# -- the transports: those that cross a network (docker/transports.sh); a server the guest cannot run (wcf's Mono host)
# refuses itself there, with the reason
servers=()
while read -r transport meets broker _; do
  if [ "$broker" != - ]; then echo "   $transport: not supported in the guest: it needs a broker"
  elif [ "$meets" = network ]; then servers+=("$transport:$((first_port + ${#servers[@]}))")
  else echo "   $transport: not supported in the guest: it does not cross a network (it meets its client on: $meets)"
  fi
done <<<"$(transport_facts "$cli" "${transports[@]}")"
[ ${#servers[@]} -gt 0 ] || unsupported "none of ${transports[*]} can run in the guest"

# -- the guest: Debian's kernel and an initramfs, made once per recipe (every file's path and content)
# recipe: "PATH<tab>SOURCE" lines, the initramfs's files; the kernel's modules in their load order (modprobe's)
library_closure() { # FILE...: the shared libraries they need, their loader too, as ldd finds them here
  ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' | sort -u
}
recipe() {
  local busybox optional=() file
  busybox=$(command -v busybox)
  printf '/init\t%s\n' "$PWD/docker/vm/init"
  printf '/bin/busybox\t%s\n' "$busybox"
  # Libraries .NET loads by name when a transport needs them (TLS, libzmq), where the host has them
  for file in /usr/lib/x86_64-linux-gnu/libssl.so.3 /usr/lib/x86_64-linux-gnu/libzmq.so.5; do
    [ ! -e "$file" ] || optional+=("$file")
  done
  for file in $( { library_closure "$busybox" "$app/ipcbench" "$app"/*.so "${optional[@]}"; printf '%s\n' "${optional[@]}"; } \
                 | grep -v "^$app/" | sort -u); do
    printf '%s\t%s\n' "$file" "$file"
  done
  (cd "$app" && find . -type f | sort) | while read -r file; do printf '/app/%s\t%s\n' "${file#./}" "$app/${file#./}"; done
  # virtio-net and the PCI transport, modules in Debian's kernel; "builtin" lines (nothing to load) left out
  for file in virtio_pci virtio_net; do modprobe -S "$kernel_version" --show-depends "$file"; done \
    | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r file; do printf 'module\t%s\n' "$file"; done
}
recipe >"$work/recipe"
grep -q '^module' "$work/recipe" || grep -q '^CONFIG_VIRTIO_NET=y' "/boot/config-$kernel_version" 2>/dev/null \
  || unsupported "kernel $kernel_version has no virtio_net module"
key=$( { echo "$kernel_version"; sha256sum "/boot/vmlinuz-$kernel_version" | cut -d' ' -f1
         paste <(cut -f1 "$work/recipe") <(cut -f2 "$work/recipe" | xargs -d '\n' sha256sum | cut -d' ' -f1); } \
       | sha256sum | cut -c1-16)
guest=$cache/guest-$key

build_guest() { # the initramfs from the recipe, into $cache/.building-PID, then renamed to $guest at once
  local building=$cache/.building-$$ root=$cache/.building-$$/root dest src # on the cache's disk: ~150 MB
  mkdir -p "$root"/{proc,sys,dev,tmp,etc/ipcbench} "$building"
  while IFS=$'\t' read -r dest src; do
    if [ "$dest" = module ]; then # the guest loads them with busybox's insmod, which takes them uncompressed
      dest=${src%.xz}; dest=${dest%.zst}
      mkdir -p "$root$(dirname "$dest")"
      case "$src" in *.xz) xz -dc "$src" ;; *.zst) zstd -qdc "$src" ;; *) cat "$src" ;; esac >"$root$dest"
      echo "$dest" >>"$root/etc/ipcbench/modules"
    else
      mkdir -p "$root$(dirname "$dest")"
      cp -L "$src" "$root$dest"
    fi
  done <"$work/recipe"
  cp "/boot/vmlinuz-$kernel_version" "$building/vmlinuz"
  # lz4 (legacy format, which the kernel reads) when there is one: it unpacks about as fast as no compression does
  # under TCG, and halves what the cache keeps
  local compress=(cat)
  command -v lz4 >/dev/null && compress=(lz4 -q -l -c)
  (cd "$root" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null) | "${compress[@]}" >"$building/initrd"
  rm -rf "$root" "$cache"/guest-*
  mv "$building" "$guest"
}
if [ ! -s "$guest/initrd" ]; then
  echo "== building the guest: kernel $kernel_version, busybox, ipcbench ($(du -sh "$app" | cut -f1))"
  build_guest
fi

# -- the guest's network: a tap on the host side, with the host's end of the /30
ip tuntap add dev "$tap" mode tap || unsupported "cannot make a tap device ($tap)"
tap_made=yes
ip addr add "$host_ip/30" dev "$tap"
ip link set "$tap" up

# boot ACCEL: starts qemu in the background (qemu_pid); the guest's console goes to $work/console.log
boot() {
  local server_list cpu=()
  server_list=$(IFS=,; echo "${servers[*]}")
  [ "$1" != kvm ] || cpu=(-cpu host)
  echo "== booting the guest (qemu -accel $1), servers: ${servers[*]}"
  : >"$work/console.log"
  qemu-system-x86_64 -accel "$1" "${cpu[@]}" -m 1536 -smp 1 -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$guest/vmlinuz" -initrd "$guest/initrd" \
    -append "console=ttyS0 quiet panic=-1 ipcbench_ip=$guest_ip/30 ipcbench_servers=$server_list" \
    -netdev "tap,id=n0,ifname=$tap,script=no,downscript=no" -device virtio-net-pci,netdev=n0,romfile= \
    -serial "file:$work/console.log" </dev/null >"$work/qemu.log" 2>&1 9>&- &
  qemu_pid=$!
  echo "$qemu_pid" >"$work/qemu.pid"
}
console_tail() {
  echo "-- qemu:" >&2; tail -n 5 "$work/qemu.log" >&2
  echo "-- the guest's console (last 30 lines):" >&2
  tr -d '\r' <"$work/console.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' | tail -n 30 >&2
}
# wait_console PATTERN SECONDS: until the console has a line matching PATTERN (grep -E); 1 when qemu ends first or the
# time is up
wait_console() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    grep -Eq "$1" "$work/console.log" && return 0
    kill -0 "$qemu_pid" 2>/dev/null || { grep -Eq "$1" "$work/console.log"; return; }
    sleep 0.5
  done
  return 1
}

# -- boot: under KVM when it works here (a guest that reaches its init within 30 s), else under TCG
boot_started=$SECONDS
label=vm-emulated
if [ "$accel" != tcg ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
  boot kvm
  if wait_console 'ipcbench-vm: init ' 30; then # not ^: the firmware's escape sequences come first
    label=vm
  else
    [ "$accel" = auto ] || { console_tail; unsupported "KVM did not boot the guest within 30 s"; }
    echo "== KVM did not boot the guest within 30 s ($(tail -n 1 "$work/qemu.log")): emulating it (TCG)"
    stop_qemu
  fi
fi
if [ "$label" = vm-emulated ]; then
  boot_started=$SECONDS
  boot tcg
fi

# -- every server READY (or ended: then it says why); the servers start together, and are measured one by one after
declare -A uri
for server in "${servers[@]}"; do
  transport=${server%:*}
  wait_console "^ipcbench-vm: $transport (READY |ended )" $((boot_timeout - (SECONDS - boot_started))) \
    || { console_tail; fail "the guest's $transport server was not READY within $boot_timeout s"; }
  line=$(tr -d '\r' <"$work/console.log" | grep -E -m1 "^ipcbench-vm: $transport (READY |ended )")
  case "$line" in
    *" READY "*) uri[$transport]=$(echo "$line" | sed "s/^.* READY //; s#://0\.0\.0\.0:#://$guest_ip:#") ;;
    *" ended 3") echo "   $transport in $label: not supported: $(tr -d '\r' <"$work/console.log" \
                   | sed -n "s/^ipcbench-vm: $transport: //p" | tail -n 1 | sed 's/^ipcbench serve: //')" ;;
    *) console_tail; fail "the guest's $transport server ended before it was READY ($line)" ;;
  esac
done
booted=$((SECONDS - boot_started))
init_at=$(tr -d '\r' <"$work/console.log" | grep -o 'ipcbench-vm: init [0-9.]*' | cut -d' ' -f3)
echo "== booted ($label): every server READY after $booted s (the guest's init started $init_at s into its boot)"

# -- the measurements, from the host
note=""
[ "$label" = vm ] || note=" (an emulator: never compare)"
measured=0
for server in "${servers[@]}"; do
  transport=${server%:*}
  [ -n "${uri[$transport]:-}" ] || continue
  for size in ${sizes//,/ }; do
    out=(--no-results)
    [ -z "$results" ] || out=(--results "$work/runs")
    status=0
    in_background "$cli" ping --transport "$transport" --server "${uri[$transport]}" --wait-for-server 30s \
      --count "$count" --warmup "$warmup" --size "$size" --placement none "${out[@]}" --json "$work/ping.json" >/dev/null 2>"$work/err" || status=$?
    case $status in
      0) figures_line "$work/ping.json" "$transport at $size, $label" "$note"
         measured=$((measured + 1)) ;;
      3) echo "   $transport at $size in $label: not supported: $(tail -n 1 "$work/err" | sed 's/^.* here: //')" ;;
      *) cat "$work/err" >&2; console_tail; fail "ping of the guest's $transport server at $size failed (exit $status)" ;;
    esac
  done
done
[ "$measured" -gt 0 ] || unsupported "nothing could be measured in the guest"
if [ -n "$results" ]; then # one run folder whose cases name where their server ran: isolation=vm-emulated (or vm)
  runs=()
  for dir in "$work/runs"/*; do runs+=("$label=$dir"); done
  echo "== $("$cli" merge --into "$results" "${runs[@]}")"
fi

# -- the guest, its tap and the work folder, gone; --check makes sure of it
teardown
if [ "$check" = yes ]; then
  ! ip link show "$tap" >/dev/null 2>&1 || fail "the tap $tap is still there"
  [ ! -e "$work" ] || fail "the work folder $work is still there"
  ! pgrep -f "ifname=$tap," >/dev/null || fail "a qemu of this run still runs: $(pgrep -af "ifname=$tap,")"
  echo "== --check: booted in $booted s, the whole cycle $((SECONDS - started)) s ($label); nothing left behind"
fi

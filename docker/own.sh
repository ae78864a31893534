# Sourced by the scripts that keep state or stop processes (docker/run.sh, ci.sh, vm.sh, engine.sh through them,
# tests/windows/wine.sh, test.sh's brokers, tests/leftovers.sh, benchmarks/peers.sh): state in a folder only this user
# can write, and signals only to a process whose command line is what was started.
#
# The state root: /run/ipcbench for root, else $XDG_RUNTIME_DIR/ipcbench, else /tmp/ipcbench-UID; each a directory of
# this user's, mode 0700 and not a link, or refused. In it a script keeps NAME-PID (its pid names whose it is) or a
# folder kept from run to run (test.sh's brokers).

# own_private DIR: DIR is a directory, not a link, owned by this user, mode 0700.
own_private() { [ -d "$1" ] && [ ! -L "$1" ] && [ "$(stat -c %u:%a "$1")" = "$(id -u):700" ]; }

# own_root: prints the state root, made when missing; refuses (one line, status 1) one that is not private.
own_root() {
  local root=/run/ipcbench
  if [ "$(id -u)" -ne 0 ]; then root=${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/ipcbench}; root=${root:-/tmp/ipcbench-$(id -u)}; fi
  [ -e "$root" ] || [ -L "$root" ] || mkdir -m 700 "$root" 2>/dev/null || true # a race lost here is refused next
  own_private "$root" || { echo "$root is not a private folder of $(id -un) (its directory, mode 0700, not a link): no state kept there" >&2; return 1; }
  echo "$root"
}

# own_dir NAME: prints ROOT/NAME, made (0700) when missing; refuses one that is not private.
own_dir() {
  local root dir
  root=$(own_root) || return 1
  dir=$root/$1
  [ -e "$dir" ] || [ -L "$dir" ] || mkdir -m 700 "$dir"
  own_private "$dir" || { echo "$dir is not a private folder of $(id -un): left alone" >&2; return 1; }
  echo "$dir"
}

# own_stale SCRIPT: the state folders ROOT/SCRIPT-PID whose SCRIPT no longer runs, one a line; any other entry by that
# name (a link, another owner's, a wider mode, no pid) is refused with a line on stderr and left alone.
own_stale() {
  local root dir pid
  root=$(own_root) || return 0
  for dir in "$root/$1"-*; do
    [ -e "$dir" ] || [ -L "$dir" ] || continue
    pid=${dir##*-}
    ! own_alive "$pid" "$1" || continue
    if [[ "$pid" =~ ^[1-9][0-9]{0,9}$ ]] && own_private "$dir"; then echo "$dir"
    else echo "$dir is not a state folder $1 made (a directory of $(id -un)'s, mode 0700): left alone" >&2; fi
  done
}

# own_alive PID PATTERN: PID is a positive number and its process's command line (arguments joined by spaces) holds PATTERN.
own_alive() {
  local cmdline
  [[ "$1" =~ ^[1-9][0-9]{0,9}$ ]] && [ -n "$2" ] && cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") \
    && [[ "$cmdline" == *"$2"* ]]
}

# stop_owned PID PATTERN [SECONDS]: SIGTERM, up to SECONDS (20) for it to end, then SIGKILL; each signal only while
# own_alive PID PATTERN (a pid is reused once its process is gone). Anything but a positive pid is refused.
stop_owned() {
  local pid=$1 pattern=$2 seconds=${3:-20} signal i
  [[ "$pid" =~ ^[1-9][0-9]{0,9}$ ]] && [ -n "$pattern" ] \
    || { echo "not signalling '$pid': not a pid, or nothing to know its process by" >&2; return 1; }
  for signal in TERM KILL; do
    own_alive "$pid" "$pattern" || return 0
    [ "$signal" = TERM ] || echo "pid $pid ($pattern) did not end within $seconds s: SIGKILL" >&2
    kill -s "$signal" "$pid" 2>/dev/null || return 0
    for ((i = 0; i < seconds * 5; i++)); do own_alive "$pid" "$pattern" || return 0; sleep 0.2; done
  done
}

# own_sweep SCRIPT [FUNCTION]: what each run of SCRIPT killed by SIGKILL left (no trap ran in it), from the folders
# own_stale gives: its recorded child (own_background) stopped, then FUNCTION DIR OWNER-PID for the rest, then the folder.
own_sweep() {
  local dirs dir
  mapfile -t dirs < <(own_stale "$1")
  for dir in "${dirs[@]}"; do
    echo "== removing what $1 ${dir##*-} left (it was killed)"
    own_stop_child "$dir" 30
    [ -z "${2:-}" ] || "$2" "$dir" "${dir##*-}"
    rm -rf "$dir"
  done
}

# own_background DIR COMMAND...: runs COMMAND in the background and waits for it; its pid and command line go to DIR/child
# for own_stop_child (the trap's, or the next run's if this one is killed). Long commands run so because bash runs a trap
# only once the foreground command ends, and a wait ends at once on a signal.
own_background() {
  local dir=$1 pid
  shift
  "$@" & pid=$!
  printf '%s\n%s\n' "$pid" "$*" >"$dir/child"
  wait "$pid"
}

# own_stop_child DIR [SECONDS]: stops the child DIR/child names with stop_owned, only while it runs what was started.
own_stop_child() {
  local pid="" command=""
  [ -s "$1/child" ] || return 0
  { read -r pid; read -r command; } <"$1/child" || true
  stop_owned "$pid" "$command" "${2:-20}" || true
  wait "$pid" 2>/dev/null || true # reaped, when it is this shell's
}

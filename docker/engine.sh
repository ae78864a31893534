# Sourced by docker/run.sh and docker/ci.sh, after docker/own.sh: a Docker engine of IpcBench's own, for machines where
# none answers and there is no systemd to start one. Its images stay in /var/lib/ipcbench-docker for the next run.
engine_pid="" engine_exec=""

# engine_start DIR: starts dockerd with its runtime state in DIR and waits (30 s at most) until it answers.
engine_start() {
  command -v dockerd >/dev/null || { echo "no Docker engine answers and dockerd is missing (apt-get install docker.io)" >&2; return 1; }
  mkdir -p /var/lib/ipcbench-docker "$1"
  engine_exec="$1/exec"
  engine_runtimes >"$1/daemon.json"
  # --bip keeps even the default bridge link-local (169.254.0.0/16), as every network IpcBench makes.
  dockerd --data-root /var/lib/ipcbench-docker --exec-root "$1/exec" --pidfile "$1/dockerd.pid" \
    --config-file "$1/daemon.json" --bip 169.254.76.1/24 >"$1/dockerd.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 60); do timeout 5 docker info >/dev/null 2>&1 && return 0; sleep 0.5; done
  tail -n 20 "$1/dockerd.log" >&2
  echo "the Docker engine did not start" >&2
  return 1
}

# engine_runtimes: the engine's daemon.json, registering gVisor's runsc (when installed) for the sandbox pairs. A runtime's
# arguments are the runtime's, not a container's, so each variant has a name: ipcbench-runsc runs gVisor's own network
# stack (through docker/runsc-netstack, which gets Debian's runsc past a check newer kernels fool), ipcbench-runsc-hostnet
# passes the sandbox's sockets to the host kernel's stack in the container's namespace (a weaker boundary). Both run on
# the ptrace platform (no KVM needed) and may create and connect to host socket files (--host-uds=all: uds on a shared
# volume, dbus's bus socket there).
engine_runtimes() {
  local runsc
  if ! runsc=$(command -v runsc); then echo '{}'; return; fi
  cat <<EOF
{
  "runtimes": {
    "ipcbench-runsc": { "path": "$(realpath docker/runsc-netstack)", "runtimeArgs": ["--platform=ptrace", "--host-uds=all"] },
    "ipcbench-runsc-hostnet": { "path": "$runsc", "runtimeArgs": ["--platform=ptrace", "--host-uds=all", "--network=host"] }
  }
}
EOF
}

# engine_orphans_remove: on the engine engine_start started, the containers Docker no longer knows of but containerd
# and runsc still hold: a gVisor container whose start failed leaves its sandbox, its gofer and a containerd shim
# running past 'docker rm -f'.
engine_orphans_remove() {
  [ -n "$engine_pid" ] || return 0
  local containerd=(ctr --address "$engine_exec/containerd/containerd.sock" -n moby) id root
  for id in $(timeout 10 "${containerd[@]}" containers ls -q 2>/dev/null); do
    ! docker inspect "$id" >/dev/null 2>&1 || continue
    timeout 20 "${containerd[@]}" tasks delete --force "$id" >/dev/null 2>&1 || true
    timeout 10 "${containerd[@]}" containers delete "$id" >/dev/null 2>&1 || true
  done
  command -v runsc >/dev/null || return 0
  for root in "$engine_exec"/runtime-*/moby; do
    [ -d "$root" ] || continue
    for id in $(timeout 10 runsc --root "$root" list -quiet 2>/dev/null); do
      docker inspect "$id" >/dev/null 2>&1 || timeout 20 runsc --root "$root" delete --force "$id" >/dev/null 2>&1 || true
    done
  done
}

# engine_stop: stops the engine engine_start started, if any: SIGTERM, 20 s to stop its containerd too, then SIGKILL;
# only while its pid is a dockerd with our exec root.
engine_stop() {
  [ -n "$engine_pid" ] || return 0
  stop_owned "$engine_pid" "dockerd --data-root /var/lib/ipcbench-docker --exec-root $engine_exec " || true
  # not a child when it is a killed run's engine: then nothing to wait for
  [[ ! "$engine_pid" =~ ^[1-9][0-9]*$ ]] || wait "$engine_pid" 2>/dev/null || true
  engine_pid=""
}

# engine_sweep STATE: stops the engine a killed run started with engine_start STATE/engine (STATE: a folder own_stale gave).
engine_sweep() {
  set -- "$1/engine"
  [ -s "$1/dockerd.pid" ] || return 0
  engine_pid=$(<"$1/dockerd.pid") engine_exec=$1/exec
  engine_stop
  # A dockerd killed with its process group leaves its containers' shims running (they outlive containerd by design):
  # each names the engine's exec root, in this run's private state folder, on its command line.
  local shim
  for shim in $(pgrep -f -- "containerd-shim.* -address $1/exec/containerd/"); do
    stop_owned "$shim" "-address $1/exec/containerd/" 10 || true
  done
}

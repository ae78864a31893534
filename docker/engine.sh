# Sourced by docker/run.sh and docker/ci.sh: a Docker engine of IpcBench's own, for machines where none answers and
# there is no systemd to start one. Its images stay in /var/lib/ipcbench-docker for the next run.
engine_pid=""

# engine_start DIR: starts dockerd with its runtime state in DIR and waits (30 s at most) until it answers.
engine_start() {
  command -v dockerd >/dev/null || { echo "no Docker engine answers and dockerd is missing (apt-get install docker.io)" >&2; return 1; }
  mkdir -p /var/lib/ipcbench-docker "$1"
  # --bip keeps even the default bridge link-local (169.254.0.0/16), as every network IpcBench makes.
  dockerd --data-root /var/lib/ipcbench-docker --exec-root "$1/exec" --pidfile "$1/dockerd.pid" \
    --bip 169.254.76.1/24 >"$1/dockerd.log" 2>&1 &
  engine_pid=$!
  for _ in $(seq 60); do timeout 5 docker info >/dev/null 2>&1 && return 0; sleep 0.5; done
  tail -n 20 "$1/dockerd.log" >&2
  echo "the Docker engine did not start" >&2
  return 1
}

# engine_stop: stops the engine engine_start started, if any: SIGTERM, 20 s to stop its containerd too, then SIGKILL.
engine_stop() {
  [ -n "$engine_pid" ] || return 0
  kill "$engine_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$engine_pid" 2>/dev/null; then
    echo "the Docker engine did not stop within 20 s; killing it" >&2
    kill -9 "$engine_pid" 2>/dev/null || true
  fi
  wait "$engine_pid" 2>/dev/null || true # not a child when it is a killed run's engine: then nothing to wait for
  engine_pid=""
}

# Sourced, after docker/own.sh, by test.sh (brokers_up) and by docker/ci.sh and tests/leftovers.sh (brokers_env): the
# nats-server and redis-server the tests use, started by test.sh as the user it runs as and kept for the next run. Both
# ask for a password, made once and kept with their configuration, pid files and logs in the private state folder
# ROOT/brokers (docker/own.sh; /run/ipcbench/brokers as root), never on a command line; both listen on 127.0.0.1 only,
# redis also on /run/redis/redis-server.sock (owner-only), and both bound what a client can make them hold, sized for
# the largest message of the nats and redis transports (1 MiB and its header).

# brokers_env: sets brokers_password and exports IPCBENCH_NATS_URL, IPCBENCH_REDIS_URL and REDISCLI_AUTH (redis-cli's
# password) when the password test.sh made is there; nothing otherwise.
brokers_password=""
brokers_env() {
  local root password
  root=$(own_root) || return 0
  own_private "$root/brokers" && [ -f "$root/brokers/password" ] && [ ! -L "$root/brokers/password" ] || return 0
  password=$(<"$root/brokers/password")
  [[ "$password" =~ ^[0-9a-f]{32}$ ]] || return 0
  brokers_password=$password
  export IPCBENCH_NATS_URL="nats://ipcbench:$password@127.0.0.1:4222" IPCBENCH_REDIS_URL="redis://:$password@127.0.0.1:6379" \
    REDISCLI_AUTH=$password
}

# nats_ours: the server on 127.0.0.1:4222 asks for a login and takes ours (the password goes through printf, a builtin).
nats_ours() {
  ( exec 3<>/dev/tcp/127.0.0.1/4222 && read -r -t 2 info <&3 && [[ "$info" == *'"auth_required":true'* ]] \
    && printf 'CONNECT {"verbose":false,"user":"ipcbench","pass":"%s"}\r\nPING\r\n' "$brokers_password" >&3 \
    && read -r -t 2 reply <&3 && [ "${reply%$'\r'}" = PONG ] ) 2>/dev/null
}

# redis_ours: both of the server's addresses answer, ask for a password and have ours (redis-cli takes it from REDISCLI_AUTH).
redis_ours() {
  local address
  for address in "-s /run/redis/redis-server.sock" "-h 127.0.0.1 -p 6379"; do
    # shellcheck disable=SC2086 # two words each
    [ "$(timeout 2 redis-cli $address --raw CONFIG GET requirepass 2>/dev/null | sed -n 2p)" = "$brokers_password" ] || return 1
  done
}

# port_taken PORT: something accepts connections on 127.0.0.1:PORT.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# brokers_up: each broker answers with the password, else (the one test.sh started stopped, if it still runs) it is
# started anew; something else on its port is a one-line error. Then brokers_env.
brokers_up() {
  local dir
  dir=$(own_dir brokers) || return 1
  [ -e "$dir/password" ] || (umask 077; od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$dir/password")
  brokers_env
  [ -n "$brokers_password" ] || { echo "test.sh: $dir/password is not a password test.sh made: remove it" >&2; return 1; }
  if ! nats_ours; then
    [ ! -s "$dir/nats-server.pid" ] || stop_owned "$(<"$dir/nats-server.pid")" "nats-server -c $dir/nats.conf" 10 || true
    ! port_taken 4222 || { echo "test.sh: something test.sh did not start holds 127.0.0.1:4222: stop it, and test.sh starts a nats-server of its own" >&2; return 1; }
    echo "== starting nats-server"
    # Debian starts it through systemd only; by hand it runs in the foreground, so it goes to the background here.
    # max_payload is nats-server's default and the nats transport's limit; max_pending (64 MiB by default) is what a
    # slow subscriber may have queued.
    (umask 077; printf '%s\n' 'listen: "127.0.0.1:4222"' "pid_file: \"$dir/nats-server.pid\"" 'max_payload: 1048576' \
      'max_pending: 33554432' 'max_connections: 1000' "authorization { user: ipcbench, password: \"$brokers_password\" }" >"$dir/nats.conf")
    setsid nats-server -c "$dir/nats.conf" </dev/null >"$dir/nats-server.log" 2>&1 &
    for _ in $(seq 50); do nats_ours && break; sleep 0.2; done
    nats_ours || { tail -n 5 "$dir/nats-server.log" >&2; echo "test.sh: nats-server did not start" >&2; return 1; }
  fi
  if ! redis_ours; then
    [ ! -s "$dir/redis-server.pid" ] || stop_owned "$(<"$dir/redis-server.pid")" "redis-server 127.0.0.1:6379" 10 || true
    if port_taken 6379 || [ -n "$(timeout 2 redis-cli -s /run/redis/redis-server.sock ping 2>/dev/null)" ]; then
      echo "test.sh: something test.sh did not start holds 127.0.0.1:6379 or /run/redis/redis-server.sock (a packaged redis-server: service redis-server stop)" >&2
      return 1
    fi
    if [ ! -e /run/redis ]; then
      ${sudo:-} install -d -o "$(id -u)" -g "$(id -g)" /run/redis
    elif [ ! -d /run/redis ] || [ -L /run/redis ] || [ ! -O /run/redis ]; then
      echo "test.sh: /run/redis is not a directory of $(id -un)'s (Debian's redis-server package makes it for user redis): left alone" >&2; return 1
    fi
    echo "== starting redis-server"
    # On loopback and on the Unix socket Debian's redis.conf suggests, owner-only, no snapshot. A request's bulk string
    # (512 MB by default) is bounded to 2 MB, what a client sends before it is answered (1 GB) to 32 MB.
    (umask 077; printf '%s\n' 'bind 127.0.0.1' 'port 6379' 'unixsocket /run/redis/redis-server.sock' 'unixsocketperm 700' \
      "requirepass \"$brokers_password\"" 'save ""' 'appendonly no' "dir \"$dir\"" 'daemonize yes' \
      "pidfile \"$dir/redis-server.pid\"" "logfile \"$dir/redis-server.log\"" 'proto-max-bulk-len 2mb' \
      'client-query-buffer-limit 32mb' 'maxclients 1000' >"$dir/redis.conf")
    redis-server "$dir/redis.conf"
    for _ in $(seq 50); do redis_ours && break; sleep 0.2; done
    redis_ours || { tail -n 5 "$dir/redis-server.log" >&2; echo "test.sh: redis-server did not start" >&2; return 1; }
  fi
}

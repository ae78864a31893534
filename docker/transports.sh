# Sourced by docker/run.sh and docker/vm.sh, from the repository's root: what each transport can cross, from
# 'ipcbench list --json', never from its name. transport_facts CLI TRANSPORT...: a line per transport, "NAME MEETS_ON BROKER PORT OPTION TLS" (- where it has
# none): what its client meets its server on (network, socket-file, pipe-name, shared-memory, broker, in-process), the
# broker program it goes through, the broker's port, the address option a client must be told (queue, subject, channel),
# and 1 when its client trusts only the certificate its server names. An unknown transport is a one-line error, exit 2.
. benchmarks/figures.sh

transport_facts() {
  local cli=$1 listing; shift
  listing=$("$cli" list --json) || { echo "'$cli list --json' failed" >&2; exit 2; }
  python3 -c 'import json, sys
known = {t["name"]: t for t in json.load(sys.stdin)}
for name in sys.argv[1:]:
    t = known.get(name)
    if t is None:
        sys.exit(f"unknown transport {name!r} (see ipcbench list)")
    print(name, t["meets_on"], t["broker"] or "-", t["default_port"] or "-", (t["address_options"] or ["-"])[0], int(t["trusts_one_certificate"]))' "$@" <<<"$listing" \
    || exit 2
}

# figures_line RESULTS_JSON LABEL [NOTE]: "   LABEL: p50 X us, p99 Y us NOTE", the first case of a results.json, for people.
figures_line() {
  figures "$1" '   {label}: p50 {p50} us, p99 {p99} us{note}' label="$2" note="${3:-}"
}

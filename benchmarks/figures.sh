# Sourced by the scripts that read a ping's figures (benchmarks/floor.sh, load-curve.sh, peers.sh,
# tests/windows/wine.sh): from its results.json (ping --json FILE), never from the lines it prints for people.

# figures RESULTS_JSON FORMAT [NAME=VALUE...]: FORMAT (Python's str.format) filled with the first case's latency_us
# fields (p50, p99, mean ...), rps (its requests/s) and each NAME; fails when the file holds no case.
figures() {
  python3 - "$@" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))["cases"][0]
names = dict(arg.split("=", 1) for arg in sys.argv[3:])
print(sys.argv[2].format(**case["latency_us"], rps=case["requests_per_second"], **names))
PY
}

#!/usr/bin/env bash
# An A/B regression gate that compares like with like: builds two revisions of ipcbench, measures their cases
# interleaved on this machine in this job (rounds A B, B A, A B ..., a process launch each, so that a drift of the
# machine falls on both sides), and decides with 'ipcbench compare' over the rounds, the launch being the unit: a case
# is slower when the 95% interval of its launches' p50 ratio, B over A, lies wholly above 1 + threshold, and "cannot
# tell" while the interval spans the threshold. Cases it cannot tell get more rounds, up to --max-rounds (a sequential
# design). A baseline measured on another machine, or on this one another day, is never part of it.
#
# Usage: benchmarks/ab.sh [options] BASE HEAD        (BASE and HEAD: git revisions; one revision twice is built once)
#   --transports LIST|all   tcp; all: every transport both builds know that HEAD's 'ipcbench list --json' says runs
#                           here (each transport's launches vary by 10-20% here: docs/ci-gate.md says what a verdict
#                           costs in rounds)
#   --sizes LIST            1 (request sizes, as ping's --size takes them)
#   --rounds N              6: each side runs at least N pings of each transport and size (4 is the fewest with an interval)
#   --max-rounds M          12: a case that compare cannot tell yet gets another round, up to M
#   --count N               5000 requests a ping (a launch's p50 moves little past that; what varies is the launch)
#   --duration D            instead of --count: each ping warms up for D, then measures for D (e.g. 0.5s), so that a
#                           slow transport sends fewer requests (tcp-nagle's stalls: 5,000 would take minutes)
#   --threshold PCT         10%
#   --placement P           same-core: client and server take turns on one CPU, so no figure moves with how the
#                           machine idles (see docs/placement.md); none and cross-core pay its wake-ups
#   --inject-slowdown PCT   test-only: HEAD's servers busy-wait PCT of BASE's first p50 before each reply
#                           (IPCBENCH_TEST_SERVER_DELAY_US), a regression on purpose that the gate must catch
#   --builds DIR            keep the builds in DIR and reuse them (by commit) in later runs
#   --keep DIR              keep the rounds' run folders (A/, B/), compare.md and verdicts.json in DIR, a new or empty folder
# Exit codes: 0 no case slower ("cannot tell" included: compare's table says which); 1 a case slower; 2 bad usage,
# a failed build or ping.
set -euo pipefail
cd "$(dirname "$0")/.."
. benchmarks/figures.sh

transports=tcp sizes=1 rounds=6 max_rounds=12 count=5000 duration="" threshold=10% placement=same-core slowdown="" builds="" keep=""
usage() { sed -n '9,27p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --transports) transports=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --max-rounds) max_rounds=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --threshold) threshold=$2; shift 2 ;;
    --placement) placement=$2; shift 2 ;;
    --inject-slowdown) slowdown=${2%\%}; shift 2 ;;
    --builds) builds=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "ab.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || usage
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ab.sh: --rounds must be a whole number above 0, not '$rounds'" >&2; exit 2; }
[[ "$max_rounds" =~ ^[1-9][0-9]*$ ]] && [ "$max_rounds" -ge "$rounds" ] \
  || { echo "ab.sh: --max-rounds must be a whole number no less than --rounds ($rounds), not '$max_rounds'" >&2; exit 2; }
[ -z "$slowdown" ] || [[ "$slowdown" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "ab.sh: --inject-slowdown must be a percentage such as 20%" >&2; exit 2; }
# What a ping measures: --count requests after the default warm-up, or --duration after as long a warm-up.
length=(--count "$count"); [ -z "$duration" ] || length=(--duration "$duration" --warmup "$duration")
[ -z "$keep" ] || [ -z "$(ls -A "$keep" 2>/dev/null)" ] || { echo "ab.sh: --keep $keep is not empty: name a new or empty folder" >&2; exit 2; }

started=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/ipcbench-ab.XXXXXX")
cleanup() { # the source trees of a failed build, then the rest; no other worktree of the repository is touched
  local tree
  for tree in "$work"/src-*; do [ ! -d "$tree" ] || git worktree remove --force "$tree" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
builds=${builds:-$work/builds}
runs=${keep:-$work/runs}
mkdir -p "$builds" "$runs"

# build REVISION: the folder of its ipcbench, built once per commit.
build() {
  local sha
  sha=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "ab.sh: '$1' is not a revision of this repository" >&2; exit 2; }
  local out="$builds/$sha"
  if [ ! -x "$out/ipcbench" ]; then
    local tree="$work/src-$sha"
    git worktree add --detach --quiet "$tree" "$sha"
    echo "== building $1 ($sha)" >&2
    dotnet build -c Release --nologo -v quiet "$tree/src/IpcBench.Cli" -o "$out.partial" >"$work/build-$sha.log" 2>&1 \
      || { tail -20 "$work/build-$sha.log" >&2; echo "ab.sh: the build of $1 failed" >&2; exit 2; }
    rm -rf "$out" && mv "$out.partial" "$out"
    git worktree remove --force "$tree"
  fi
  echo "$out"
}
base_bin=$(build "$1")
head_bin=$(build "$2")

# ping SIDE BIN TRANSPORT SIZE ROUND [VAR=VALUE...]: one round of one case; prints its p50.
ping() {
  local side=$1 bin=$2 transport=$3 size=$4 round=$5
  shift 5
  local out="$runs/$side/$transport-$size-round$round"
  mkdir -p "$out"
  if ! env -u IPCBENCH_TEST_SERVER_DELAY_US "$@" "$bin/ipcbench" ping --transport "$transport" --size "$size" "${length[@]}" \
      --placement "$placement" --results "$out" --json "$out/ping.json" >/dev/null 2>"$out/stderr.txt"; then
    echo "ab.sh: $side's ping of $transport at $size failed (round $round):" >&2
    tail -5 "$out/stderr.txt" >&2
    exit 2
  fi
  figures "$out/ping.json" '{p50}'
}

# judge: compare's verdicts of the rounds so far (runs/verdicts.json, compare.md); prints the cases of $cases it cannot tell yet.
judge() {
  local status=0
  "$head_bin/ipcbench" compare "$runs/A" "$runs/B" --threshold "$threshold" --json "$runs/verdicts.json" >"$runs/compare.md" \
    2>"$work/compare.err" || status=$?
  [ "$status" -le 1 ] || { cat "$work/compare.err" >&2; echo "ab.sh: compare of the rounds failed (exit $status)" >&2; exit 2; }
  python3 - "$runs/verdicts.json" $cases <<'PY'
import json, re, sys
units = {"": 1, "B": 1, "K": 1024, "KB": 1024, "M": 1 << 20, "MB": 1 << 20}
def size(text):  # as ping's --size reads it: 100, 1KB, 1K, 1MB
    number, unit = re.fullmatch(r"([0-9.]+)\s*([A-Za-z]*)", text).groups()
    return int(float(number) * units[unit.upper()])
unclear = {(c["key"]["transport"], c["key"]["size"]) for c in json.load(open(sys.argv[1]))["cases"] if c["verdict"] == "cannot-tell"}
print(" ".join(case for case in sys.argv[2:] if (case.split(":")[0], size(case.split(":")[1])) in unclear))
PY
}

# listed BIN WHICH: the transports BIN's 'ipcbench list --json' names (never its table for people): all, or those that run here.
listed() {
  "$1/ipcbench" list --json | python3 -c 'import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin) if sys.argv[1] == "all" or t["runs"]))' "$2"
}
if [ "$transports" = all ]; then
  base_knows=" $(listed "$base_bin" all) "
  transports="" new=""
  for transport in $(listed "$head_bin" runs); do
    if [[ "$base_knows" == *" $transport "* ]]; then transports+="${transports:+,}$transport"; else new+=" $transport"; fi
  done
  [ -n "$transports" ] || { echo "ab.sh: --transports all: no transport runs here" >&2; exit 2; }
  [ -z "$new" ] || echo "== not gated, new in $2 (the base has no such transport):$new"
fi

declare -A delay
echo "== $rounds to $max_rounds rounds of $transports at $sizes B, $([ -n "$duration" ] && echo "$duration a ping" || echo "$count requests each"), placement $placement: A = $1, B = $2${slowdown:+, B slowed by $slowdown% (test-only)}"
cases=$(for transport in ${transports//,/ }; do for size in ${sizes//,/ }; do echo -n "$transport:$size "; done; done)
pending=$cases
round=0
while [ -n "${pending// /}" ]; do
  round=$((round + 1))
  for case in $pending; do
    transport=${case%%:*} size=${case#*:}
    order="A B"; [ $((round % 2)) -eq 1 ] || order="B A"
    line="  round $round $transport $size B:"
    for side in $order; do
      if [ "$side" = A ]; then
        p50=$(ping A "$base_bin" "$transport" "$size" "$round")
        if [ -n "$slowdown" ] && [ -z "${delay[$transport-$size]:-}" ]; then
          delay[$transport-$size]=$(awk -v p="$p50" -v s="$slowdown" 'BEGIN { printf "%.3f", p * s / 100 }')
        fi
      else
        p50=$(ping B "$head_bin" "$transport" "$size" "$round" ${slowdown:+IPCBENCH_TEST_SERVER_DELAY_US=${delay[$transport-$size]}})
      fi
      line+=" $side p50 $p50 us"
    done
    echo "$line"
  done
  if [ "$round" -ge "$rounds" ]; then
    pending=$(judge) || exit 2
    [ "$round" -lt "$max_rounds" ] || break
    [ -z "$pending" ] || echo "  cannot tell yet after $round rounds: ${pending% }; another round of those"
  fi
done

status=0
python3 -c 'import json, sys; sys.exit(any(c["verdict"] == "slower" for c in json.load(open(sys.argv[1]))["cases"]))' "$runs/verdicts.json" \
  || status=1
cat "$runs/compare.md"
echo "== A/B done in $(( $(date +%s) - started )) s, $round rounds: $([ "$status" -eq 0 ] && echo "no case slower" || echo "a case is slower")"
exit "$status"

#!/usr/bin/env bash
# An A/B regression gate that compares like with like: builds two revisions of ipcbench, measures their cases
# interleaved on this machine in this job (rounds A B, B A, A B ..., so that a drift of the machine falls on both
# sides), and decides with 'ipcbench compare' over the pooled rounds: a case is slower when its p50 (its fastest
# round's) grew by more than the threshold AND a Mann-Whitney U test on the rounds' per-request samples gives p < 0.01.
# A baseline measured on another machine, or on this one another day, is never part of it.
#
# Usage: benchmarks/ab.sh [options] BASE HEAD        (BASE and HEAD: git revisions; one revision twice is built once)
#   --transports LIST       tcp (uds lands on a fast or a slow p50 per process here: it needs more rounds than
#                           tcp, and even 4 were not enough once; see docs/ci-gate.md)
#   --sizes LIST            1 (request sizes, as ping's --size takes them)
#   --rounds N              6: each side runs N pings of each transport and size
#   --count N               20000 requests a ping
#   --threshold PCT         10%
#   --placement P           same-core: client and server take turns on one CPU, so no figure moves with how the
#                           machine idles (see docs/placement.md); none and cross-core pay its wake-ups
#   --inject-slowdown PCT   test-only: HEAD's servers busy-wait PCT of BASE's first p50 before each reply
#                           (IPCBENCH_TEST_SERVER_DELAY_US), a regression on purpose that the gate must catch
#   --builds DIR            keep the builds in DIR and reuse them (by commit) in later runs
#   --keep DIR              keep the rounds' run folders (A/, B/) and compare.md in DIR, a new or empty folder
# Exit codes: 0 no case slower; 1 a case slower (compare's table says which); 2 bad usage, a failed build or ping.
set -euo pipefail
cd "$(dirname "$0")/.."

transports=tcp sizes=1 rounds=6 count=20000 threshold=10% placement=same-core slowdown="" builds="" keep=""
usage() { sed -n '8,21p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --transports) transports=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
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
[ -z "$slowdown" ] || [[ "$slowdown" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "ab.sh: --inject-slowdown must be a percentage such as 20%" >&2; exit 2; }
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
  if ! env -u IPCBENCH_TEST_SERVER_DELAY_US "$@" "$bin/ipcbench" ping --transport "$transport" --size "$size" --count "$count" \
      --placement "$placement" --results "$out" --json "$out/ping.json" >/dev/null 2>"$out/stderr.txt"; then
    echo "ab.sh: $side's ping of $transport at $size failed (round $round):" >&2
    tail -5 "$out/stderr.txt" >&2
    exit 2
  fi
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cases"][0]["latency_us"]["p50"])' "$out/ping.json"
}

declare -A delay
echo "== $rounds rounds of $transports at $sizes B, $count requests each, placement $placement: A = $1, B = $2${slowdown:+, B slowed by $slowdown% (test-only)}"
for round in $(seq 1 "$rounds"); do
  for transport in ${transports//,/ }; do
    for size in ${sizes//,/ }; do
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
  done
done

status=0
"$head_bin/ipcbench" compare "$runs/A" "$runs/B" --threshold "$threshold" >"$runs/compare.md" || status=$?
cat "$runs/compare.md"
echo "== A/B done in $(( $(date +%s) - started )) s: $(case $status in 0) echo "no case slower" ;; 1) echo "a case is slower" ;; *) echo "compare failed (exit $status)" ;; esac)"
case $status in 0|1) exit "$status" ;; *) exit 2 ;; esac

#!/usr/bin/env bash
# An A/B regression gate that compares like with like: builds two revisions of ipcbench, then runs HEAD's
# 'ipcbench gate' on the two builds: their cases measured interleaved on this machine in this job (rounds A B, B A,
# ..., a process launch each, so that a drift of the machine falls on both sides), judged on the launches, with more
# rounds for a case it cannot tell yet (docs/ci-gate.md). A baseline measured elsewhere, or another day, is never part of it.
#
# Usage: benchmarks/ab.sh [--builds DIR] [gate options] BASE HEAD   (git revisions; one revision twice is built once)
#   --builds DIR   keep the builds in DIR and reuse them (by commit) in later runs
#   gate options   as 'ipcbench gate --help' gives them: --transports LIST|all (tcp), --sizes (1), --rounds (6),
#                  --max-rounds (12), --count (5000) or --duration D, --threshold (10%), --placement (same-core),
#                  --inject-slowdown PCT (test-only), --keep DIR (a new or empty folder: the rounds and verdicts.json),
#                  --fail-on VERDICTS (slower: the verdicts that make the exit 1)
# Exit codes: 0 no case slower ("cannot tell" included); 1 a case slower (or --fail-on's); 2 bad usage, a failed build or ping.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '7,13p' "$0" >&2; exit 2; }

builds="" gate=() revisions=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage ;;
    --builds) builds=${2:?}; shift 2 ;;
    --keep) # checked before the builds' minutes; the gate checks it again for its other callers
      [ -z "$(ls -A "${2:?}" 2>/dev/null)" ] || { echo "ab.sh: --keep $2 is not empty: name a new or empty folder" >&2; exit 2; }
      gate+=("$1" "$2"); shift 2 ;;
    --*) gate+=("$1" "${2:?$1 takes a value}"); shift 2 ;;
    *) revisions+=("$1"); shift ;;
  esac
done
[ ${#revisions[@]} -eq 2 ] || usage

work=$(mktemp -d "${TMPDIR:-/tmp}/ipcbench-ab.XXXXXX")
cleanup() { # the source trees of a failed build, then the rest; no other worktree of the repository is touched
  local tree
  for tree in "$work"/src-*; do [ ! -d "$tree" ] || git worktree remove --force "$tree" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
builds=${builds:-$work/builds}
mkdir -p "$builds"

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
base_bin=$(build "${revisions[0]}")
head_bin=$(build "${revisions[1]}")
echo "== A = ${revisions[0]} (${base_bin##*/}), B = ${revisions[1]} (${head_bin##*/})"
"$head_bin/ipcbench" gate --base "$base_bin" --head "$head_bin" "${gate[@]}"

#!/usr/bin/env bash
# Keeps a gate in the history branch, as the benchmarks workflow does on each push to main, so that the history grows
# by itself: KEPT, what 'ipcbench keep GATE --into KEPT' made of a gate (benchmarks/ab.sh --keep GATE: its rounds'
# results.json without their per-request samples, verdicts.json, compare.md), becomes gates/TIME-COMMIT/ in a commit
# on BRANCH, pushed to REMOTE. 'ipcbench history' reads them back: git worktree add DIR BRANCH, then
# ipcbench history DIR/gates/*.
#
#   benchmarks/keep-gate.sh KEPT [BRANCH [REMOTE]]     (BRANCH ipcbench-history, REMOTE origin; run in this repository)
#
# The commit is made with an index of its own: the work tree, its index and HEAD stay as they are. The branch starts
# empty (no parent) the first time. A folder without B/ or verdicts.json, or holding a link, is refused (exit 2) and
# nothing is pushed. A push that loses a race with another fails (exit 1): the workflow runs one at a time.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 3 ] || { sed -n 8p "$0" >&2; exit 2; }
kept_dir=$1 branch=${2:-ipcbench-history} remote=${3:-origin}
refuse() { echo "keep-gate.sh: $*" >&2; exit 2; }
[ -d "$kept_dir/B" ] && [ -f "$kept_dir/verdicts.json" ] || refuse "$kept_dir is not a kept gate ('ipcbench keep'): it has no B/ or no verdicts.json"
link=$(find "$kept_dir" -type l -print -quit)
[ -z "$link" ] || refuse "$kept_dir holds a link ($link): nothing kept"

work=$(mktemp -d "${TMPDIR:-/tmp}/ipcbench-keep-gate.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_INDEX_FILE=$work/index
parent=()
if git fetch -q "$remote" "refs/heads/$branch" 2>/dev/null; then
  git read-tree FETCH_HEAD
  parent=(-p FETCH_HEAD)
else
  git read-tree --empty
fi
commit=$(git rev-parse HEAD)
folder=gates/$(date -u +%Y%m%d-%H%M%S)-${commit:0:7}
kept=0 results=0
while IFS= read -r -d '' file; do
  [ "${file##*/}" != results.json ] || results=$((results + 1))
  git update-index --add --cacheinfo "100644,$(git hash-object -w -- "$kept_dir/$file"),$folder/${file#./}"
  kept=$((kept + 1))
done < <(cd "$kept_dir" && find . -type f \( -name results.json -o -name verdicts.json -o -name compare.md \) -print0)
[ "$results" -gt 0 ] || refuse "$kept_dir holds no results.json"
export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-ipcbench history} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-ipcbench-history@localhost}
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}
kept_commit=$(git commit-tree "$(git write-tree)" "${parent[@]}" -m "The gate of $commit" -m "$kept files from $kept_dir, in $folder")
git push -q "$remote" "$kept_commit:refs/heads/$branch" || { echo "keep-gate.sh: the push to $remote $branch failed" >&2; exit 1; }
echo "$folder"

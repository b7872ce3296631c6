#!/bin/sh
# Commits a release folder (what scripts/release.sh writes) to a branch of a
# git repository, so that Claude Code installs the plugin from a URL with its
# binaries inside and no Go:
#
#   scripts/release-branch.sh RELEASE_FOLDER REPO [BRANCH]
#
# BRANCH (default plugin-release) gets one new commit whose tree is exactly
# the folder (.claude-plugin/marketplace.json at its root, plugin/ with
# libexec/<os>-<arch>/ for every target); its parent is the branch's
# previous tip, so users who added the marketplace get the new version with
# `claude plugin marketplace update`. The commit is also tagged
# plugin-<version> (the version in the folder's marketplace.json), which
# pins it: `claude plugin marketplace add <url>#plugin-<version>`.
#
# REPO may be a bare repository (the e2e test serves one on 127.0.0.1) or a
# working clone (the release workflow, which then pushes the branch and the
# tag). Its work tree and index are left alone: the commit is built with a
# temporary index. Prints the commit's id.
set -eu
src=${1:?usage: scripts/release-branch.sh RELEASE_FOLDER REPO [BRANCH]}
repo=${2:?usage: scripts/release-branch.sh RELEASE_FOLDER REPO [BRANCH]}
branch=${3:-plugin-release}
[ -f "$src/.claude-plugin/marketplace.json" ] || {
	echo "release-branch.sh: $src has no .claude-plugin/marketplace.json: not a folder scripts/release.sh wrote" >&2
	exit 2
}
ver=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$src/.claude-plugin/marketplace.json" | head -n 1)
[ -n "$ver" ] || { echo "release-branch.sh: no version in $src/.claude-plugin/marketplace.json" >&2; exit 2; }
src=$(cd "$src" && pwd)

gitdir=$(git -C "$repo" rev-parse --absolute-git-dir)
index=$(mktemp "${TMPDIR:-/tmp}/bottle-release-index.XXXXXX")
trap 'rm -f "$index"' EXIT
rm -f "$index"
# The folder as the tree: every file with its mode (the binaries keep their
# exec bits), nothing of the repository's own work tree.
(cd "$src" && GIT_DIR=$gitdir GIT_INDEX_FILE=$index GIT_WORK_TREE=$src git add -A -f .)
tree=$(GIT_DIR=$gitdir GIT_INDEX_FILE=$index git write-tree)
parent=$(GIT_DIR=$gitdir git rev-parse -q --verify "refs/heads/$branch^{commit}" || true)
set -- -m "bottle plugin $ver: the release folder, binaries for every platform inside"
[ -n "$parent" ] && set -- -p "$parent" "$@"
commit=$(GIT_DIR=$gitdir GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-bottle release} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-release@bottle.invalid} \
	GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-bottle release} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-release@bottle.invalid} \
	git commit-tree "$tree" "$@")
GIT_DIR=$gitdir git update-ref "refs/heads/$branch" "$commit"
GIT_DIR=$gitdir git tag -f "plugin-$ver" "$commit" >/dev/null
echo "$commit"

#!/bin/sh
# Installs the real Claude Code CLI from npm for the end-to-end test (e2e/) and
# prints the path of a working `claude` binary on stdout (progress goes to stderr).
#
#   scripts/install-claude.sh VERSION
#
# Each version goes into its own folder outside the repository,
# ${BOTTLE_E2E_CACHE:-$HOME/.cache/bottle-e2e}/VERSION, and is reused when it is
# already there (2.1.332 is a ~400 MB download). From 2.1.198 on the package
# declares engines.node >= 22; npm on Node 20 only warns (EBADENGINE) and the CLI
# runs anyway: the package wraps a native binary.
set -eu
ver=${1:?usage: install-claude.sh VERSION}
cache=${BOTTLE_E2E_CACHE:-$HOME/.cache/bottle-e2e}
dir=$cache/$ver

# find prints the first binary under $dir that reports the wanted version.
find_bin() {
	for b in "$dir/node_modules/.bin/claude" "$dir"/node_modules/@anthropic-ai/claude-code-*/claude; do
		if [ -x "$b" ] && v=$("$b" --version 2>/dev/null) && [ "${v%% *}" = "$ver" ]; then
			echo "$b"
			return 0
		fi
	done
	return 1
}

if bin=$(find_bin); then
	echo "install-claude.sh: reusing $bin" >&2
	echo "$bin"
	exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "install-claude.sh: npm not found (apt-get install npm)" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || printf '{"name": "bottle-e2e-cli", "private": true}\n' >package.json
echo "install-claude.sh: npm install @anthropic-ai/claude-code@$ver into $dir" >&2
npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$ver" >&2
if bin=$(find_bin); then
	echo "$bin"
	exit 0
fi
echo "install-claude.sh: no working claude $ver binary under $dir" >&2
exit 1

#!/bin/sh
# Installs the real OpenAI Codex CLI from npm for the end-to-end test (e2e/) and
# prints the path of a working `codex` binary on stdout (progress goes to stderr).
#
#   scripts/install-codex.sh VERSION
#
# Each version goes into its own folder outside the repository,
# ${BOTTLE_E2E_CACHE:-$HOME/.cache/bottle-e2e}/codex-VERSION, and is reused when
# it is already there (0.171.0 pulls a ~315 MB native binary through the
# optional dependency @openai/codex-linux-x64).
set -eu
ver=${1:?usage: install-codex.sh VERSION}
cache=${BOTTLE_E2E_CACHE:-$HOME/.cache/bottle-e2e}
dir=$cache/codex-$ver

# find_bin prints the first binary under $dir that reports the wanted version
# ("codex-cli 0.171.0").
find_bin() {
	for b in "$dir/node_modules/.bin/codex" "$dir"/node_modules/@openai/codex*/vendor/*/bin/codex; do
		if [ -x "$b" ] && v=$("$b" --version 2>/dev/null) && [ "${v##* }" = "$ver" ]; then
			echo "$b"
			return 0
		fi
	done
	return 1
}

if bin=$(find_bin); then
	echo "install-codex.sh: reusing $bin" >&2
	echo "$bin"
	exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "install-codex.sh: npm not found (apt-get install npm)" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || printf '{"name": "bottle-e2e-codex", "private": true}\n' >package.json
echo "install-codex.sh: npm install @openai/codex@$ver into $dir" >&2
npm install --no-audit --no-fund --loglevel=error "@openai/codex@$ver" >&2
if bin=$(find_bin); then
	echo "$bin"
	exit 0
fi
echo "install-codex.sh: no working codex $ver binary under $dir" >&2
exit 1

#!/bin/sh
# Starts bottle's MCP server from a clone; the committed .mcp.json runs it.
#
# Builds ./mcpserver into the git-ignored .bottle-build/ when the binary is
# missing or older than a Go source, go.mod, go.sum or an embedded file, then
# execs it in the caller's working directory (the server's current session is
# the newest of that directory's project). stdout is the MCP channel: nothing
# but the server writes to it; build errors go to stderr. A build with a warm
# Go cache takes about a second; a cold one (fresh machine) can exceed Claude
# Code's 30 s start-up timeout, so run this script once by hand first (e.g.
# scripts/mcpserver-wrapper.sh --version) or raise MCP_TIMEOUT.
set -eu

root=$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd -P)
dir=$root/.bottle-build
bin=$dir/mcpserver
case "$(uname -s 2>/dev/null)" in
MINGW* | MSYS* | CYGWIN*) bin=$bin.exe ;;
esac

# stale: the binary is missing, or a build input is newer than it.
stale() {
	[ -x "$bin" ] || return 0
	newer=$(find "$root" \( -name .git -o -name .bottle-build -o -name testdata -o -name node_modules \) -prune -o \
		-type f \( \( -name '*.go' ! -name '*_test.go' \) -o -name go.mod -o -name go.sum \
		-o -path '*/tools/*.md' -o -path '*/render/example/*' \) -newer "$bin" -print 2>/dev/null | head -n 1)
	[ -n "$newer" ]
}

if stale; then
	if ! command -v go >/dev/null 2>&1; then
		PATH=$PATH:/usr/local/go/bin:/opt/homebrew/bin:$HOME/go/bin:$HOME/sdk/go/bin
	fi
	if command -v go >/dev/null 2>&1; then
		mkdir -p "$dir"
		tmp=$dir/.mcpserver.$$.tmp
		# Build into a temporary name and rename it: servers of several
		# sessions may start, and build, at the same time.
		if (cd "$root" && go build -o "$tmp" ./mcpserver) >&2; then
			mv -f "$tmp" "$bin"
		else
			rm -f "$tmp"
			[ -x "$bin" ] || exit 1
			echo "mcpserver-wrapper: build failed; starting the previous build" >&2
		fi
	elif [ ! -x "$bin" ]; then
		echo "mcpserver-wrapper: go not found on PATH; install Go 1.26 or build with: go build -o .bottle-build/ ./mcpserver" >&2
		exit 1
	fi
fi
exec "$bin" "$@"

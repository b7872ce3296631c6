#!/usr/bin/env bash
# first-hour.sh [DIR]: times the README's set-up commands as a new user runs
# them, on a fresh clone of this repository in DIR (default: a temporary
# folder), first with empty Go caches (module and build cache both new,
# modules fetched from the proxy), then again with the caches that run left:
#
#   go run ./hookbin render --example     (the first command of "Set up")
#   scripts/test.sh                        (the test command; BOTTLE_FIRST_HOUR_TESTS=0 skips it)
#   the plugin build from a clone          (go build -trimpath ... ./pretooluse)
#   scripts/release.sh VERSION             (this machine's platform, then all five)
#
# in the README's order, so that each "empty caches" time is the time after
# the commands above it, as a new user meets it.
# The corpus tests read $BOTTLE_CORPUS (set it to time them too); the
# end-to-end tests skip, as for a new user.
#
# Each line: the command, its exit status, the wall time and the load
# average as it ended; numbers taken on a busy machine are not worth much,
# so run it on an idle one. Nothing outside DIR is written or deleted.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d)}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
rm -rf "$dir/clone" "$dir/gomod" "$dir/gocache"
git clone -q "$repo" "$dir/clone" || exit 1
cd "$dir/clone" || exit 1
export GOMODCACHE=$dir/gomod GOCACHE=$dir/gocache GOFLAGS=-modcacherw
platform=$(go env GOOS)-$(go env GOARCH)

timed() {
	local start end rc
	start=$(date +%s.%N)
	"$@" >"$dir/last.out" 2>&1
	rc=$?
	end=$(date +%s.%N)
	printf '%-72s exit %d  %7.1f s  load %s\n' "$*" "$rc" "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)"
	[ "$rc" -eq 0 ] || tail -n 5 "$dir/last.out" | sed 's/^/    /'
}

echo "== $(nproc 2>/dev/null || echo ?) cores, $(go version | cut -d' ' -f3), clone of $(git rev-parse --short HEAD)"
for pass in "empty caches" "warm caches"; do
	echo "== $pass"
	timed go run ./hookbin render --example
	if [ "${BOTTLE_FIRST_HOUR_TESTS:-1}" != 0 ]; then
		timed scripts/test.sh
	fi
	timed go build -trimpath -o "plugin/libexec/$platform/" ./hookbin ./mcpserver ./pretooluse
	BOTTLE_RELEASE_TARGETS=$(go env GOOS)/$(go env GOARCH) BOTTLE_RELEASE_DIST=$dir/dist timed scripts/release.sh 0.0.0-first-hour
	BOTTLE_RELEASE_DIST=$dir/dist timed scripts/release.sh 0.0.0-first-hour
done

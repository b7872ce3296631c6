#!/bin/sh
# test.sh [go test arguments]: runs the tests as CI does (go test -race
# -count=1 ./..., or with the arguments given instead of ./...), then says
# on stderr, in one line, which groups of tests skipped and how to run them:
# go test reports a package's skips only with -v. The groups note their
# skips in the file $BOTTLE_TEST_SKIPS names (internal/measure/corpustest).
cd "$(dirname "$0")/.." || exit 1
skips=$(mktemp) || exit 1
trap 'rm -f "$skips"' EXIT
[ $# -gt 0 ] || set -- ./...
BOTTLE_TEST_SKIPS=$skips go test -race -count=1 "$@"
rc=$?
if [ -s "$skips" ]; then
	sort -u "$skips" | awk -F '\t' '
		!seen[$1]++ { line = line sep $1 " (" $2 ")"; sep = "; " }
		END { print "test.sh: skipped " line >"/dev/stderr" }'
else
	echo "test.sh: no group of tests skipped (corpus and end-to-end tests ran where selected)" >&2
fi
exit $rc

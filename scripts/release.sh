#!/bin/sh
# Builds a self-contained plugin marketplace folder for users without Go:
#
#   scripts/release.sh VERSION
#
# writes dist/bottle-plugin-VERSION/ (the marketplace: .claude-plugin/marketplace.json,
# plugin/ with libexec/<os>-<arch>/{hookbin,mcpserver} for every target, README, LICENSE),
# dist/bottle-plugin-VERSION.tar.gz and dist/bottle-plugin-VERSION.sha256 (SHA-256 of the
# archive and of every binary). Install it with two commands:
#
#   claude plugin marketplace add dist/bottle-plugin-VERSION
#   claude plugin install bottle@bottle
#
# Binaries are CGO_ENABLED=0 -trimpath -ldflags='-s -w' (bottle is pure Go: modernc
# sqlite), with VERSION as their version. BOTTLE_RELEASE_TARGETS overrides the targets
# (space-separated GOOS/GOARCH; the e2e test builds only its own); BOTTLE_RELEASE_DIST
# the output folder (default dist/).
set -eu
ver=${1:?usage: scripts/release.sh VERSION}
case $ver in
*[!A-Za-z0-9._+-]* | -*) echo "release.sh: VERSION must be letters, digits and . _ + -, got $ver" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
repo=$PWD
targets=${BOTTLE_RELEASE_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}
dist=${BOTTLE_RELEASE_DIST:-$repo/dist}
name=bottle-plugin-$ver
out=$dist/$name

rm -rf "$out" "$out.tar.gz" "$out.sha256"
mkdir -p "$out/.claude-plugin"
# The plugin as committed (no libexec of a local build), then the binaries.
tar -C "$repo" --exclude=plugin/libexec -cf - plugin | tar -C "$out" -xf -
cp "$repo/LICENSE" "$out/plugin/LICENSE"
cp "$repo/LICENSE" "$repo/plugin/README.md" "$out/"
# The version goes into every manifest: "claude plugin update" compares it,
# and Codex names its plugin cache folder after it.
for m in .claude-plugin/marketplace.json plugin/.claude-plugin/plugin.json plugin/.codex-plugin/plugin.json; do
	sed "s/\"version\": \"[^\"]*\"/\"version\": \"$ver\"/" "$repo/$m" >"$out/$m"
done

for t in $targets; do
	os=${t%/*} arch=${t#*/}
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags="-s -w -X bottle/internal/version.version=$ver" \
		-o "$out/plugin/libexec/$os-$arch/" ./hookbin ./mcpserver ./pretooluse
	echo "release.sh: built $os-$arch" >&2
done

# A reproducible archive (sorted names, fixed owner and time) where tar is
# GNU tar; a plain one elsewhere (macOS's bsdtar has no --sort).
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	tar -C "$dist" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -czf "$out.tar.gz" "$name"
else
	tar -C "$dist" -czf "$out.tar.gz" "$name"
fi
sha256() { if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }
(
	cd "$dist"
	sha256 "$name.tar.gz"
	find "$name/plugin/libexec" -type f | LC_ALL=C sort | while read -r f; do sha256 "$f"; done
) >"$out.sha256"

echo "release.sh: sizes" >&2
(cd "$out/plugin/libexec" && du -b */* | LC_ALL=C sort -k2) >&2
du -sb "$out" "$out.tar.gz" >&2
echo "$out"

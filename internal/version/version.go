// Package version owns the version bottle's binaries report: the one set at
// build time (scripts/release.sh passes
// -ldflags "-X bottle/internal/version.version=…"), else the module's
// version from the build info (go install …@v1.2.3), else "dev". It must
// not depend on anything of the module.
package version

import "runtime/debug"

// version is set at build time with -ldflags "-X bottle/internal/version.version=…".
var version = ""

// String is the version of the running binary.
func String() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

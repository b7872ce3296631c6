//go:build unix && !linux

package e2e

// isolation says how the test is kept off the network, for the log.
var isolation = "proxy trap only (no network namespaces on this OS)"

// isolate runs the tests in this process: only Linux has network namespaces.
func isolate() (code int, done bool) { return 0, false }

//go:build !linux

package locate

// newNotifier: no system watch here; every listing lists every folder.
func newNotifier(string) notifier { return nil }

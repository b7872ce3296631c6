//go:build unix

package hooklog

import "syscall"

// noFollow makes opening the log fail when its last element is a symlink.
const noFollow = syscall.O_NOFOLLOW

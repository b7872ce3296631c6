//go:build !unix

package hooklog

// noFollow is 0 where the system has no O_NOFOLLOW; Append's Lstat check
// still refuses a log that is a symlink.
const noFollow = 0

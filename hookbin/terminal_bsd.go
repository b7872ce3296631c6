//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "syscall"

// ioctlGetTermios reads a terminal's settings.
const ioctlGetTermios = syscall.TIOCGETA

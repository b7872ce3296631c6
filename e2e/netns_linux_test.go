package e2e

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// netnsEnv selects the isolation: "auto" (default: a network namespace
// where the kernel allows one), "on" (fail without one) or "off".
const netnsEnv = "BOTTLE_E2E_NETNS"

// inNetnsEnv marks the re-run inside the namespace.
const inNetnsEnv = "BOTTLE_E2E_IN_NETNS"

// isolation says how the test is kept off the network, for the log.
var isolation = "proxy trap only (" + netnsEnv + "=off)"

// isolate re-runs the test binary in a new network namespace that has only
// loopback, and returns its exit status with done set. It returns done
// false to run the tests in this process: inside the namespace, when the
// end-to-end test will not run, or when no namespace can be made (auto).
func isolate() (code int, done bool) {
	mode := os.Getenv(netnsEnv)
	if os.Getenv(inNetnsEnv) != "" {
		if err := loopbackUp(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: bring up loopback in the network namespace: %v\n", err)
			return 1, true
		}
		isolation = "network namespace with loopback only, plus the proxy trap"
		return 0, false
	}
	if os.Getenv(claudeEnv) == "" && os.Getenv(codexEnv) == "" || mode == "off" {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), inNetnsEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if err := cmd.Start(); err != nil {
		if mode == "on" {
			fmt.Fprintf(os.Stderr, "e2e: no network namespace (%s=on): %v\n", netnsEnv, err)
			return 1, true
		}
		isolation = fmt.Sprintf("proxy trap only (no network namespace: %v)", err)
		return 0, false
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), true
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1, true
	}
	return 0, true
}

// loopbackUp sets the IFF_UP flag of "lo", as "ip link set lo up" does.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr [40]byte // struct ifreq: name[IFNAMSIZ], then the flags (short)
	copy(ifr[:], "lo")
	ioctl := func(req uintptr) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
			return e
		}
		return nil
	}
	if err := ioctl(syscall.SIOCGIFFLAGS); err != nil {
		return fmt.Errorf("get flags: %w", err)
	}
	flags := binary.NativeEndian.Uint16(ifr[syscall.IFNAMSIZ:])
	binary.NativeEndian.PutUint16(ifr[syscall.IFNAMSIZ:], flags|syscall.IFF_UP)
	if err := ioctl(syscall.SIOCSIFFLAGS); err != nil {
		return fmt.Errorf("set flags: %w", err)
	}
	return nil
}

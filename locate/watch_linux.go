package locate

import (
	"errors"
	"path/filepath"
	"syscall"
	"unsafe"
)

// inotify is the notifier on Linux.
type inotify struct {
	fd   int
	root int32            // the projects folder's watch
	dirs map[int32]string // a project folder's watch -> the folder
	buf  []byte
}

// The changes a project folder's watch is told of: a file written,
// touched, added, removed or renamed, and the folder itself going.
const (
	dirEvents  = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE | syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR
	rootEvents = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ATTRIB | syscall.IN_ONLYDIR
)

func newNotifier(root string) notifier {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	wd, err := syscall.InotifyAddWatch(fd, root, rootEvents)
	if err != nil {
		syscall.Close(fd)
		return nil
	}
	return &inotify{fd: fd, root: int32(wd), dirs: map[int32]string{}, buf: make([]byte, 64<<10)}
}

func (n *inotify) watch(dir string) bool {
	wd, err := syscall.InotifyAddWatch(n.fd, dir, dirEvents)
	if err != nil {
		return false
	}
	n.dirs[int32(wd)] = dir
	return true
}

func (n *inotify) drain(w *Watch, changes map[[2]string]bool) bool {
	for {
		k, err := syscall.Read(n.fd, n.buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EAGAIN) {
			return true
		}
		if err != nil || k <= 0 {
			return false
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= k; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&n.buf[off]))
			name := ""
			if ev.Len > 0 {
				raw := n.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				for i, c := range raw {
					if c == 0 {
						raw = raw[:i]
						break
					}
				}
				name = string(raw)
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&syscall.IN_Q_OVERFLOW != 0:
				return false // changes were lost
			case ev.Wd == n.root:
				if name == "" {
					return false // the projects folder itself changed
				}
				dir := filepath.Join(w.env.ProjectsDir(), name)
				if ev.Mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM) != 0 {
					delete(w.dirs, dir)
				} else if ev.Mask&syscall.IN_ISDIR != 0 {
					w.listDir(dir)
				}
				if w.n == nil {
					return false // no watch left
				}
			default:
				dir, ok := n.dirs[ev.Wd]
				if ev.Mask&syscall.IN_IGNORED != 0 {
					delete(n.dirs, ev.Wd)
					continue
				}
				if !ok {
					continue
				}
				if ev.Mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0 {
					name = ""
				}
				changes[[2]string{dir, name}] = true
			}
		}
	}
}

func (n *inotify) close() error { return syscall.Close(n.fd) }

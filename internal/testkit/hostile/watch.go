//go:build linux

package hostile

import (
	"bytes"
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// Watch reports the files of one folder that any process opened or read
// while it watched (inotify IN_OPEN and IN_ACCESS): the tests' measure of
// whether a run read outside the folders it may read. Looking a file up
// (stat, following a link to it) is neither.
type Watch struct {
	fd  int
	dir string
	// Opened and Read count the events per file name ("" is the folder
	// itself, e.g. listed).
	Opened, Read map[string]int
}

// WatchFolder starts watching dir (not its subfolders).
func WatchFolder(dir string) (*Watch, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_ACCESS); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	return &Watch{fd: fd, dir: dir, Opened: map[string]int{}, Read: map[string]int{}}, nil
}

// Collect reads the events so far into Opened and Read.
func (w *Watch) Collect() error {
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(w.fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("inotify read: %w", err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			if ev.Mask&syscall.IN_OPEN != 0 {
				w.Opened[name]++
			}
			if ev.Mask&syscall.IN_ACCESS != 0 {
				w.Read[name]++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// Close stops watching.
func (w *Watch) Close() error { return syscall.Close(w.fd) }

package specs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// openInside opens the file at the clean absolute path abs, once, and
// checks what was opened: a regular file (a FIFO, device or directory is
// refused; O_NONBLOCK keeps the opening of a FIFO from waiting for a
// writer) whose real path, symbolic links resolved, lies inside one of
// realRoots. Checking the opened file, not the name, leaves no time in
// which the name can be made to point elsewhere. The error says why,
// without the field name.
func openInside(abs string, realRoots []string) (*os.File, string, error) {
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, "", err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, "", fmt.Errorf("%s is %s, not a regular file", abs, fileKind(st.Mode()))
	}
	real, err := openedPath(f, abs, st)
	if err != nil {
		f.Close()
		return nil, "", err
	}
	if !insideAny(real, realRoots) {
		f.Close()
		return nil, real, errOutside
	}
	return f, real, nil
}

// errOutside: the opened file lies outside the allowed folders.
var errOutside = fmt.Errorf("outside the allowed folders")

// openedPath is the real path of the opened file f: on Linux the kernel's
// (/proc/self/fd), elsewhere abs with links resolved, provided it is still
// the file that was opened.
func openedPath(f *os.File, abs string, st os.FileInfo) (string, error) {
	if runtime.GOOS == "linux" {
		if p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd())); err == nil && filepath.IsAbs(p) {
			return p, nil
		}
	}
	p, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	now, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !os.SameFile(st, now) {
		return "", fmt.Errorf("%s changed while it was being opened", abs)
	}
	return p, nil
}

// fileKind names a file mode that is not a regular file's.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a " + m.Type().String() + " file"
}

// readAtMost reads up to limit+1 bytes of f (one more than limit tells
// the reader the file was longer).
func readAtMost(f *os.File, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, nil
}

// This file checks the values of command-line flags before a
// pipeline is built, so that a wrong value fails at once with one line that
// names the flag, never inside a worker or after a run has started.
//
// Local paths are checked with stat. A gs:// value is left to its first
// read: checking it here would need the credentials the workers use, and a
// gs:// "directory" is a prefix that need not exist as an object.

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/recrawl/recrawl/internal/storage"
)

// CheckUsage is the help text of the --check flag of recrawl index and
// recrawl extract.
const CheckUsage = "only check the command line, then exit 0 or with the error: the flag values, the spec and the index spec, the runner options and that every worker can reach every path; no archive is read, nothing written, no pipeline built or run"

// CheckFile checks that path names an existing file that is not a directory.
func CheckFile(flag, path string) error {
	if path == "" || storage.IsGCS(path) {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s=%s: no such file", flag, path)
	case err != nil:
		return fmt.Errorf("%s=%s: %w", flag, path, err)
	case fi.IsDir():
		return fmt.Errorf("%s=%s: a directory, not a file", flag, path)
	}
	return readable(flag, path)
}

// CheckDir checks that path names an existing directory.
func CheckDir(flag, path string) error {
	if path == "" || storage.IsGCS(path) {
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s=%s: no such directory", flag, path)
	case err != nil:
		return fmt.Errorf("%s=%s: %w", flag, path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s=%s: a file, not a directory", flag, path)
	}
	return nil
}

// CheckFileOrDir checks that path names an existing file or directory.
func CheckFileOrDir(flag, path string) error {
	if path == "" || storage.IsGCS(path) {
		return nil
	}
	fi, err := os.Stat(strings.TrimSuffix(path, "/"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s=%s: no such file or directory", flag, path)
	case err != nil:
		return fmt.Errorf("%s=%s: %w", flag, path, err)
	case !fi.IsDir():
		return readable(flag, path)
	}
	return nil
}

// readable opens a file to find out whether it can be read.
func readable(flag, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s=%s: cannot be read: %w", flag, path, errors.Unwrap(err))
	}
	return f.Close()
}

// CheckOutputDir checks that path is a directory or can be made one: neither it
// nor an existing folder above it is a file.
func CheckOutputDir(flag, path string) error {
	if path == "" || storage.IsGCS(path) {
		return nil
	}
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir() && p == filepath.Clean(path):
			return fmt.Errorf("%s=%s: a file, not a directory", flag, path)
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s=%s: %s is a file, so the directory cannot be made", flag, path, p)
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return fmt.Errorf("%s=%s: %w", flag, path, err)
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// CheckAtLeast checks that an integer flag is min or more.
func CheckAtLeast(flag string, v, min int64) error {
	if v < min {
		return fmt.Errorf("%s=%d: must be %d or more", flag, v, min)
	}
	return nil
}

// CheckOneOf checks that a flag's value is one of allowed.
func CheckOneOf(flag, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%s=%q: want %s", flag, v, strings.Join(allowed, " or "))
}

// CheckNoArgs refuses arguments left after the flags (a value whose flag was
// mistyped, or a flag after them, which the flag package does not read).
func CheckNoArgs(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q: every value is given with a flag (a flag after it is not read)", args[0])
	}
	return nil
}

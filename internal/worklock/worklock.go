// Package worklock keeps two runs out of one output or work directory.
//
// A run takes the directory's lock before it reads or writes anything there
// and releases it when it ends. The lock is a file, FileName, holding its
// owner (process id, host, start time, command), so a second run is refused
// with "OUT is in use by pid N since T" instead of failing later on a file
// the first run renamed away.
//
//   - Local directories: the file is locked with flock(2), which the kernel
//     releases when the owner dies however it dies (kill -9 included). A lock
//     file whose flock is free is therefore a dead run's: it is taken over
//     and the owner it names is reported.
//   - gs:// directories: the lock is an object created only if it does not
//     exist (generation 0 precondition) and deleted only at the generation
//     that was written, so of two runs exactly one wins. GCS cannot tell
//     whether a process on another machine is alive: a lock left by a dead
//     process on this host is taken over (replaced at its generation); one
//     left by another host is reported with that host, to be removed by hand
//     once that run is known to be gone.
package worklock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/recrawl/recrawl/internal/storage"
)

// FileName is the lock file inside a locked directory.
const FileName = ".recrawl.lock"

// Owner is the run that holds a lock.
type Owner struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Since   time.Time `json:"since"`
	Command string    `json:"command,omitempty"`
}

func (o Owner) String() string {
	s := fmt.Sprintf("pid %d", o.PID)
	if h, _ := os.Hostname(); o.Host != "" && o.Host != h {
		s += " on host " + o.Host
	}
	return s + " since " + o.Since.UTC().Format(time.RFC3339)
}

// InUseError is returned when another run holds the lock.
type InUseError struct {
	Dir   string
	Owner *Owner // nil when the owner has not written its name yet
	Hint  string // what to do, if anything
}

func (e *InUseError) Error() string {
	who := "another run (starting up)"
	if e.Owner != nil {
		who = e.Owner.String()
	}
	s := fmt.Sprintf("%s is in use by %s", e.Dir, who)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Lock is a held lock.
type Lock struct {
	dir  string
	path string
	f    *os.File // local: the flock'ed file
	gen  int64    // gs://: the generation written
	// TakenOver is the dead run whose lock was taken over, if any.
	TakenOver *Owner
}

// Dir is the locked directory.
func (l *Lock) Dir() string { return l.dir }

func self() Owner {
	h, _ := os.Hostname()
	return Owner{PID: os.Getpid(), Host: h, Since: time.Now().UTC().Truncate(time.Second), Command: strings.Join(os.Args, " ")}
}

// Acquire takes the lock of dir (created if missing), or returns an
// *InUseError naming its owner.
func Acquire(ctx context.Context, dir string) (*Lock, error) {
	if storage.IsGCS(dir) {
		return acquireGCS(ctx, dir)
	}
	return acquireLocal(dir)
}

func acquireLocal(dir string) (*Lock, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	for range 20 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			owner := readOwner(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &InUseError{Dir: dir, Owner: owner}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// The holder before us may have removed the file between our open
		// and our flock: then we hold a lock nobody else can see.
		held, _ := f.Stat()
		now, err := os.Stat(path)
		if err != nil || !os.SameFile(held, now) {
			f.Close()
			continue
		}
		l := &Lock{dir: dir, path: path, f: f, TakenOver: readOwner(f)}
		b, _ := json.Marshal(self())
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt(append(b, '\n'), 0)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", path)
}

func readOwner(r io.ReaderAt) *Owner {
	b := make([]byte, 64<<10)
	n, _ := r.ReadAt(b, 0)
	var o Owner
	if n == 0 || json.Unmarshal(b[:n], &o) != nil || o.PID == 0 {
		return nil
	}
	return &o
}

// Release gives the lock up (the lock file is removed).
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	if l.f != nil {
		err := os.Remove(l.path)
		if cerr := l.f.Close(); err == nil {
			err = cerr
		}
		l.f = nil
		return err
	}
	if l.gen != 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		obj, err := storage.GCSObject(ctx, l.path)
		if err != nil {
			return err
		}
		err = obj.If(gcs.Conditions{GenerationMatch: l.gen}).Delete(ctx)
		l.gen = 0
		if err != nil {
			return fmt.Errorf("release the lock %s: %w", l.path, err)
		}
	}
	return nil
}

// alive reports whether a process of this host with that pid exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func preconditionFailed(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == 412
}

func acquireGCS(ctx context.Context, dir string) (*Lock, error) {
	path := storage.Join(dir, FileName)
	obj, err := storage.GCSObject(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	me := self()
	write := func(cond gcs.Conditions) (int64, error) {
		w := obj.If(cond).NewWriter(ctx)
		w.ContentType = "application/json"
		b, _ := json.Marshal(me)
		if _, err := w.Write(b); err != nil {
			w.Close()
			return 0, err
		}
		if err := w.Close(); err != nil {
			return 0, err
		}
		return w.Attrs().Generation, nil
	}
	for range 5 {
		gen, err := write(gcs.Conditions{DoesNotExist: true})
		if err == nil {
			return &Lock{dir: dir, path: path, gen: gen}, nil
		}
		if !preconditionFailed(err) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		r, err := obj.NewReader(ctx)
		if errors.Is(err, gcs.ErrObjectNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		b, err := io.ReadAll(io.LimitReader(r, 64<<10))
		held := r.Attrs.Generation
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		var owner Owner
		if json.Unmarshal(b, &owner) != nil || owner.PID == 0 {
			return nil, &InUseError{Dir: dir, Hint: fmt.Sprintf("%s holds no owner; remove it if no run uses %s", path, dir)}
		}
		if owner.Host != me.Host {
			return nil, &InUseError{Dir: dir, Owner: &owner, Hint: fmt.Sprintf("if that run is gone, remove %s", path)}
		}
		if alive(owner.PID) {
			return nil, &InUseError{Dir: dir, Owner: &owner}
		}
		gen, err = write(gcs.Conditions{GenerationMatch: held})
		if err == nil {
			return &Lock{dir: dir, path: path, gen: gen, TakenOver: &owner}, nil
		}
		if !preconditionFailed(err) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// Another run took it over first: look again.
	}
	return nil, fmt.Errorf("lock %s: the lock object keeps changing", path)
}

// Hold locks each distinct non-empty directory in turn (an output directory
// and a work directory outside it) and says on w when it took over a dead
// run's lock. release gives them all up.
func Hold(ctx context.Context, w io.Writer, dirs ...string) (release func(), err error) {
	var held []*Lock
	release = func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Release()
		}
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" || seen[d] {
			continue
		}
		seen[d] = true
		l, err := Acquire(ctx, d)
		if err != nil {
			release()
			return func() {}, err
		}
		held = append(held, l)
		if o := l.TakenOver; o != nil {
			fmt.Fprintf(w, "took over the lock of %s from %s: that run is no longer running\n", d, o)
		}
		if n, err := RemoveOrphans(d); err != nil {
			release()
			return func() {}, err
		} else if n > 0 {
			fmt.Fprintf(w, "removed %d temporary files a killed run left in %s\n", n, d)
		}
	}
	return release, nil
}

// RemoveOrphans deletes the temporary files (".NAME.tmp-*", written by
// storage.Create and renamed when complete) below a local directory. Call it
// only while holding the directory's lock: then no run is writing them, and
// every one is a leftover of a run that was killed. gs:// has none (an
// object appears only when its upload completes).
func RemoveOrphans(dir string) (int, error) {
	if storage.IsGCS(dir) {
		return 0, nil
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		name := d.Name()
		if !d.IsDir() && strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("remove leftover temporary files in %s: %w", dir, err)
	}
	return n, nil
}

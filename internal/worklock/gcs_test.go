package worklock

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	gcs "cloud.google.com/go/storage"

	"github.com/recrawl/recrawl/internal/testkit/testservers"
)

// TestGCSLock runs the gs:// lock against fake-gcs-server: a second run is
// refused, a dead local owner's lock is taken over at its generation, another
// host's lock is reported with the object to remove.
func TestGCSLock(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", testservers.GCS(t))
	ctx := context.Background()
	c, err := gcs.NewClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Bucket("locks").Create(ctx, "test-project", nil); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	const dir = "gs://locks/out"
	l, err := Acquire(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(ctx, dir)
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.Owner == nil || inUse.Owner.PID != os.Getpid() {
		t.Fatalf("second lock: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}

	put := func(o Owner) {
		w := c.Bucket("locks").Object("out/" + FileName).NewWriter(ctx)
		json.NewEncoder(w).Encode(o)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	host, _ := os.Hostname()
	// A pid that is not running: the largest pid is below 1<<22 on Linux.
	dead := Owner{PID: 1<<22 + 7, Host: host, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	put(dead)
	l, err = Acquire(ctx, dir)
	if err != nil || l.TakenOver == nil || l.TakenOver.PID != dead.PID {
		t.Fatalf("lock of a dead owner: %v (taken over: %+v)", err, l)
	}
	l.Release()

	put(Owner{PID: 42, Host: "elsewhere", Since: dead.Since})
	_, err = Acquire(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), "in use by pid 42 on host elsewhere since 2026-01-02T03:04:05Z") ||
		!strings.Contains(err.Error(), "remove "+dir+"/"+FileName) {
		t.Errorf("another host's lock: %v", err)
	}
}

package hostile

import (
	"fmt"
	"os"
	"path/filepath"
)

// SwapFile swaps the file at path, again and again until the returned stop
// is called, between a symbolic link to target and a regular file holding
// content. Each swap is an atomic rename of a new file over path, so a
// reader of path sees one or the other, never a missing or partial file:
// what a loader that checks a file and then opens it by name races against.
// stop returns once the swapping has ended.
func SwapFile(path, target string, content []byte) (stop func()) {
	dir := filepath.Dir(path)
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			default:
			}
			tmp := filepath.Join(dir, fmt.Sprintf(".swap-%d", i))
			if i%2 == 0 {
				os.Symlink(target, tmp)
			} else {
				os.WriteFile(tmp, content, 0o644)
			}
			os.Rename(tmp, path)
		}
	}()
	return func() {
		close(quit)
		<-stopped
	}
}

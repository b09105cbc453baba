package archive

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// SafeFilename checks that an index filename names a file inside an archive
// location: a relative, clean path without "..", backslashes or a scheme.
// Anything else is rejected before any file is opened.
func SafeFilename(name string) error {
	switch {
	case name == "":
		return errors.New("empty filename")
	case strings.HasPrefix(name, "/"), strings.Contains(name, `\`), strings.Contains(name, ":"):
		return fmt.Errorf("filename %q is not relative to the archive locations", name)
	case path.Clean(name) != name, name == "..", strings.HasPrefix(name, "../"):
		return fmt.Errorf("filename %q would resolve outside the archive locations", name)
	}
	return nil
}

package lookup

import (
	"fmt"
	"strings"
)

// The kinds of snapshot index, the text before the ':' of an index spec.
const (
	KindCDXJ     = "cdxj"     // a sorted CDXJ (or CDX) file
	KindZipNum   = "zipnum"   // a ZipNum index: a directory, or its FILE.idx
	KindBigtable = "bigtable" // a Bigtable table: PROJECT/INSTANCE/TABLE
)

// Spec names a snapshot index, as the --index flag writes it:
// "cdxj:FILE", "zipnum:DIR" (or "zipnum:FILE.idx") or
// "bigtable:PROJECT/INSTANCE/TABLE". FILE and DIR are local paths or
// gs:// URIs.
type Spec struct {
	Kind     string // KindCDXJ, KindZipNum or KindBigtable
	Location string // the file, directory or PROJECT/INSTANCE/TABLE
}

// ParseSpec reads "kind:location". The error quotes the text and says
// what an index spec looks like.
func ParseSpec(text string) (Spec, error) {
	kind, location, ok := strings.Cut(text, ":")
	if !ok || location == "" {
		return Spec{}, fmt.Errorf("index %q: want cdxj:FILE, zipnum:DIR or bigtable:PROJECT/INSTANCE/TABLE", text)
	}
	switch kind {
	case KindCDXJ, KindZipNum, KindBigtable:
		return Spec{Kind: kind, Location: location}, nil
	}
	return Spec{}, fmt.Errorf("index %q: unknown kind %q: want cdxj:FILE, zipnum:DIR or bigtable:PROJECT/INSTANCE/TABLE", text, kind)
}

// String is the spec as ParseSpec reads it.
func (s Spec) String() string { return s.Kind + ":" + s.Location }

// Path is the storage path of a file index (CDXJ, ZipNum), local or
// gs://; "" for Bigtable, which is reached by its address.
func (s Spec) Path() string {
	if s.Kind == KindBigtable {
		return ""
	}
	return s.Location
}

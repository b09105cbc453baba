package archivegen

import (
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/scoring/document/datelibrary"
)

// The tests and benchmarks parse documents with their dates.
func init() { document.RegisterDateLibrary(datelibrary.Library{}) }

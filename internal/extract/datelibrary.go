package extract

import (
	"github.com/recrawl/recrawl/scoring/document"
	"github.com/recrawl/recrawl/scoring/document/datelibrary"
)

// Documents are scored with their publication dates: every program that
// extracts has go-htmldate as document's date library.
func init() { document.RegisterDateLibrary(datelibrary.Library{}) }

package document

import (
	"errors"
	"strings"
	"testing"
)

// TestTooDeepNamed: a page nested deeper than the parser accepts is refused
// with ErrTooDeep, not as a damaged record.
func TestTooDeepNamed(t *testing.T) {
	body := "<html><body>" + strings.Repeat("<div>", 600) + "x" + strings.Repeat("</div>", 600) + "</body></html>"
	_, err := Parse([]byte(body), "text/html", "http://deep.example/", Options{})
	if !errors.Is(err, ErrTooDeep) {
		t.Fatalf("600 nested divs: %v; want ErrTooDeep", err)
	}
	if _, err := Parse([]byte(strings.Repeat("<div>", 100)+"x"), "text/html", "http://ok.example/", Options{}); err != nil {
		t.Errorf("100 nested divs: %v", err)
	}
}

package replaytest

import (
	"slices"
	"strings"
	"testing"

	"github.com/recrawl/recrawl/internal/cdxj"
	"github.com/recrawl/recrawl/internal/wacz"
)

// kinds are the checks' kinds, sorted.
func kinds(checks []Check) []string {
	var out []string
	for _, ck := range checks {
		out = append(out, ck.Kind)
	}
	slices.Sort(out)
	return out
}

// TestChecksWithoutRedirect: a collection with no redirect (as an
// extraction output may be) gets its pages and revisit checked; only a
// caller that requires a redirect gets an error.
func TestChecksWithoutRedirect(t *testing.T) {
	c, err := BuildCollection(t.TempDir(), 60, 5, wacz.Options{Title: testTitle})
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.Checks(2, "revisit", "redirect")
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(all); !slices.Equal(got, []string{"page", "page", "redirect", "revisit"}) {
		t.Fatalf("generated collection: checks %v, want 2 pages, a revisit and a redirect", got)
	}
	noRedirect := &Collection{Dir: c.Dir, Docs: c.Docs}
	for _, cp := range c.Captures {
		if cp.Status != "301" && cp.Status != "302" {
			noRedirect.Captures = append(noRedirect.Captures, cp)
		}
	}
	checks, err := noRedirect.Checks(2)
	if err != nil {
		t.Fatalf("no redirect, none required: %v", err)
	}
	if got := kinds(checks); !slices.Equal(got, []string{"page", "page", "revisit"}) {
		t.Errorf("no redirect: checks %v, want 2 pages and a revisit", got)
	}
	if _, err := noRedirect.Checks(2, "redirect"); err == nil || !strings.Contains(err.Error(), "no redirect") {
		t.Errorf("no redirect, one required: error %v, want \"no redirect\"", err)
	}
	noRevisit := &Collection{Dir: c.Dir, Docs: c.Docs}
	noRevisit.Captures = slices.DeleteFunc(slices.Clone(noRedirect.Captures), cdxj.Capture.IsRevisit)
	if checks, err := noRevisit.Checks(3); err != nil || len(checks) != 3 {
		t.Errorf("neither revisit nor redirect: %d checks, %v; want the 3 pages", len(checks), err)
	}
}

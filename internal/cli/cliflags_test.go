package cli

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestAliasAndPrint(t *testing.T) {
	all := flag.NewFlagSet("all", flag.ContinueOnError)
	all.SetOutput(io.Discard)
	runner := all.String("runner", "prism", "the library's flag")
	own := flag.NewFlagSet("own", flag.ContinueOnError)
	capture := own.String("capture_time", "", "the command's flag")
	Alias(own, "capture-time", "capture_time")
	Own(all, own)

	if err := all.Parse([]string{"--capture-time", "2009", "--runner", "flink"}); err != nil {
		t.Fatal(err)
	}
	if *capture != "2009" || *runner != "flink" {
		t.Errorf("capture_time %q runner %q: the alias or the shared value did not set the flag", *capture, *runner)
	}
	if d := Deprecated(all); len(d) != 1 || d[0] != "--capture-time is deprecated: use --capture_time" {
		t.Errorf("Deprecated: %q", d)
	}

	var b strings.Builder
	Print(&b, "usage: cmd --capture_time T", own, all, "Library flags:")
	help := b.String()
	order := []string{"usage: cmd", "Flags:", "-capture_time", "Library flags:", "-runner"}
	at := 0
	for _, s := range order {
		i := strings.Index(help[at:], s)
		if i < 0 {
			t.Fatalf("help lacks %q after position %d:\n%s", s, at, help)
		}
		at += i + len(s)
	}
	if strings.Contains(help, "capture-time") {
		t.Errorf("help lists the alias:\n%s", help)
	}
	if n := strings.Count(help, "\n  -capture_time"); n != 1 {
		t.Errorf("the command's flag is listed %d times:\n%s", n, help)
	}
	if !strings.Contains(help, `(default "prism")`) {
		t.Errorf("help lost the default of --runner after parsing:\n%s", help)
	}
}

package specs_test

import (
	"fmt"
	"os"

	"github.com/recrawl/recrawl/specs"
)

func ExampleParse() {
	s, err := specs.Parse([]byte(`
name: election2009
event: {start: 2009-09-27, end: 2009-09-27}
lead_time: P180D
cooldown_time: P30D
reference_documents:
  - url: https://de.wikipedia.org/wiki/Bundestagswahl_2009
    language: de
keywords: {de: [Bundestagswahl, Zweitstimme]}
deny: [wikipedia.org]
`), "election2009.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	start, end := s.EventInterval()
	fmt.Println(start, "to", end, "(exclusive)")
	fmt.Println(s.LeadTime, s.LeadTime.Duration(), s.Strategy, s.Alpha, s.BatchSize)
	fmt.Println(s.HostAllowed("www.spiegel.de"), s.HostAllowed("de.wikipedia.org"))
	// Output:
	// 2009-09-27 00:00:00 +0000 UTC to 2009-09-28 00:00:00 +0000 UTC (exclusive)
	// P180D 4320h0m0s ctf 0.5 100
	// true false
}

func ExampleParse_errors() {
	_, err := specs.Parse([]byte(`
name: x
evnt: {start: 2009-09-27}
lead_time: P1X
cooldown_time: P30D
alpha: 1.5
reference_documents: [{url: "https://example.org/", text: "both"}]
`), "x.yaml")
	fmt.Println(err)
	// Output:
	// x.yaml:3: unknown field "evnt" at top level (did you mean "event"?)
	// x.yaml:4: lead_time: "P1X" is not an ISO-8601 duration (unexpected designator "X"; examples: P30D, P2W, P6M, PT12H, P1Y2M3DT4H5M6S)
	// x.yaml:6: alpha: 1.5 is outside [0, 1]
	// x.yaml:7: reference_documents[0]: needs exactly one of url, file, text (has 2)
	// x.yaml:2: event: missing (event.start and event.end, e.g. 2009-09-27)
}

func ExampleSpec_Write() {
	s, err := specs.Parse([]byte("name: m\nevent: {start: 2010-03-20}\nlead_time: P0D\ncooldown_time: P2W\nreference_documents: [{url: 'https://example.org/a'}]\n"), "m.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Write(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # Collection specification "m", resolved (defaults filled in).
	// name: m
	// event:
	//   start: "2010-03-20"
	//   end: "2010-03-20"
	// lead_time: P0D
	// cooldown_time: P2W
	// reference_documents:
	//   - url: https://example.org/a
	// strategy: ctf
	// alpha: 0.5
	// target_size: 100000
	// batch_size: 100
	// max_rounds: 0
	// stop_after_empty_rounds: 100
	// max_per_host: 0
	// outlinks: all
	// max_document_bytes: 5242880
	// default_language: en
	// reference_vector_size: 100
	// normalize: true
}

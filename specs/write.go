package specs

import (
	"encoding/json"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// file is the canonical layout of a specification for output, in the order
// a reader wants it: identity, temporal scope, topical scope, extraction,
// analysis, precomputed data. Parse reads what this writes.
type file struct {
	Name                 string              `json:"name" yaml:"name"`
	Description          string              `json:"description,omitempty" yaml:"description,omitempty"`
	Event                Event               `json:"event" yaml:"event"`
	LeadTime             Duration            `json:"lead_time" yaml:"lead_time"`
	CooldownTime         Duration            `json:"cooldown_time" yaml:"cooldown_time"`
	ReferenceDocuments   []ReferenceDocument `json:"reference_documents,omitempty" yaml:"reference_documents,omitempty"`
	Keywords             any                 `json:"keywords,omitempty" yaml:"keywords,omitempty"`
	Seeds                []string            `json:"seeds,omitempty" yaml:"seeds,omitempty"`
	Strategy             Strategy            `json:"strategy" yaml:"strategy"`
	Alpha                float64             `json:"alpha" yaml:"alpha"`
	TargetSize           int                 `json:"target_size" yaml:"target_size"`
	BatchSize            int                 `json:"batch_size" yaml:"batch_size"`
	MaxRounds            int                 `json:"max_rounds" yaml:"max_rounds"`
	MaxPerHost           int                 `json:"max_per_host" yaml:"max_per_host"`
	StopAfterEmptyRounds int                 `json:"stop_after_empty_rounds" yaml:"stop_after_empty_rounds"`
	Allow                []string            `json:"allow,omitempty" yaml:"allow,omitempty"`
	Deny                 []string            `json:"deny,omitempty" yaml:"deny,omitempty"`
	Outlinks             OutlinkScope        `json:"outlinks" yaml:"outlinks"`
	focusFile            `yaml:",inline"`
	MaxDocumentBytes     int64                         `json:"max_document_bytes" yaml:"max_document_bytes"`
	Languages            []string                      `json:"languages,omitempty" yaml:"languages,omitempty"`
	DefaultLanguage      string                        `json:"default_language" yaml:"default_language"`
	ReferenceVectorSize  int                           `json:"reference_vector_size" yaml:"reference_vector_size"`
	Normalize            bool                          `json:"normalize" yaml:"normalize"`
	Dictionary           string                        `json:"dictionary,omitempty" yaml:"dictionary,omitempty"`
	ReferenceVectors     map[string]map[string]float64 `json:"reference_vectors,omitempty" yaml:"reference_vectors,omitempty"`
	CorrectionFactors    map[string]float64            `json:"correction_factors,omitempty" yaml:"correction_factors,omitempty"`
}

func (s *Spec) toFile() file {
	f := file{
		Name: s.Name, Description: s.Description, Event: s.Event,
		LeadTime: s.LeadTime, CooldownTime: s.CooldownTime,
		ReferenceDocuments: s.ReferenceDocuments, Seeds: s.Seeds,
		Strategy: s.Strategy, Alpha: s.Alpha, TargetSize: s.TargetSize,
		BatchSize: s.BatchSize, MaxRounds: s.MaxRounds, MaxPerHost: s.MaxPerHost, StopAfterEmptyRounds: s.StopAfterEmptyRounds,
		Allow: s.Allow, Deny: s.Deny, Outlinks: s.Outlinks, focusFile: s.Focus.toFile(),
		MaxDocumentBytes: s.MaxDocumentBytes, Languages: s.Languages,
		DefaultLanguage: s.DefaultLanguage, ReferenceVectorSize: s.ReferenceVectorSize,
		Normalize: s.Normalize, Dictionary: s.Dictionary,
		ReferenceVectors: s.ReferenceVectors, CorrectionFactors: s.CorrectionFactors,
	}
	// Keywords for all languages only are written as a plain list.
	if all, ok := s.Keywords[AllLanguages]; ok && len(s.Keywords) == 1 {
		f.Keywords = all
	} else if len(s.Keywords) > 0 {
		f.Keywords = map[string][]string(s.Keywords)
	}
	return f
}

// Write writes the specification as YAML in the canonical format, every
// default filled in, so that a run's record shows exactly what was used.
// Parse reads it back to an equal Spec (Path and Format aside).
func (s *Spec) Write(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "# Collection specification %q, resolved (defaults filled in).\n", s.Name); err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(s.toFile()); err != nil {
		return fmt.Errorf("write specification %s: %w", s.Name, err)
	}
	return enc.Close()
}

// MarshalJSON writes the canonical format as JSON, so a Spec can be embedded
// in run records.
func (s Spec) MarshalJSON() ([]byte, error) { return json.Marshal(s.toFile()) }

// UnmarshalJSON parses and validates a specification in JSON (this
// package's format or the original one), as Parse does.
func (s *Spec) UnmarshalJSON(data []byte) error {
	v, err := parse(data, "<json>", FormatJSON, false)
	if err != nil {
		return err
	}
	*s = *v
	return nil
}

package specs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"gopkg.in/yaml.v3"
)

// entry is one field as written.
type entry struct {
	name  string
	value any
}

// entries returns the fields of the canonical format in Spec's order, after
// the tags: an omitempty field is left out when empty, an omitdefault field
// when it has its default under the spec's focus preset (the preset itself
// when it is the default one). calibration_splits is written only with an
// automatic follow_threshold, which is the only thing it affects. Parse
// reads back what this writes.
func (s *Spec) entries() []entry {
	c := *s
	if !c.Focus.FollowThreshold.Auto {
		c.Focus.CalibrationSplits = DefaultCalibrationSplits
	}
	ref := Defaults()
	ref.UsePreset(c.Focus.Preset, nil)
	ref.Focus.Preset = Defaults().Focus.Preset
	v, def := reflect.ValueOf(c), reflect.ValueOf(ref)
	var out []entry
	for _, f := range fieldsOf(v.Type()) {
		fv := v.FieldByIndex(f.index)
		if f.omitEmpty && isEmpty(fv) || f.omitDefault && reflect.DeepEqual(fv.Interface(), def.FieldByIndex(f.index).Interface()) {
			continue
		}
		out = append(out, entry{f.name, fv.Interface()})
	}
	return out
}

// isEmpty is the omitempty rule: the zero value, an empty list or mapping,
// or a value whose IsZero method says so.
func isEmpty(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		return z.IsZero()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}

// MarshalYAML writes the canonical format (see Write).
func (s Spec) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range s.entries() {
		var v yaml.Node
		if err := v.Encode(e.value); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.name}, &v)
	}
	return m, nil
}

// Write writes s in the canonical YAML format with every default filled in,
// under a comment line naming it. Parse reads it back into an equal Spec
// (Path and Format aside).
func (s *Spec) Write(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "# Collection specification %q, resolved (defaults filled in).\n", s.Name); err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("write specification %s: %w", s.Name, err)
	}
	return enc.Close()
}

// MarshalJSON writes the canonical format as JSON, so a Spec can be embedded
// in run records.
func (s Spec) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range s.entries() {
		if i > 0 {
			b.WriteByte(',')
		}
		v, err := json.Marshal(e.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		k, _ := json.Marshal(e.name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

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

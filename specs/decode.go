package specs

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder decodes a parsed YAML/JSON tree into a tagged struct (Spec, or the
// original format's types), field by field after the struct tags (schema.go):
// only known fields, each once, every scalar of the field's type. It reports
// every problem, not only the first, with its field path and line, and
// remembers where each field was written so that problems found later
// (Validate) get their line too. It does what yaml.v3's
// Decoder.KnownFields would, and more: KnownFields reports "field x not
// found in type specs.Spec" with no suggestion, and yaml.v3 would still
// coerce scalars (name: 5 becomes "5", yes becomes true) that a
// specification must refuse.
type decoder struct {
	problems []located
	// at maps a field path ("event.start", "seeds[2]", "keywords.de") to
	// where it was written.
	at map[string]place
	// visits counts decoded nodes; aliases can make a small document a
	// large tree, so decoding stops at limit.
	visits, limit int
}

// place is where a field was written: the key (absent for list items) and
// the value.
type place struct{ key, value *yaml.Node }

// located is a problem with its position, to sort problems in document
// order. Problems about a field that is not written (a missing field, a
// rule across fields) are "whole", reported after the others in the order
// found.
type located struct {
	Problem
	col   int
	whole bool
}

// nodeDecoder is a type that decodes itself from a node with a shape of its
// own (Keywords: a list or a mapping; FollowThreshold: "auto" or a number).
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

func newDecoder(root *yaml.Node) *decoder {
	return &decoder{at: map[string]place{"": {value: root}}, limit: 4*countNodes(root) + 1000}
}

// countNodes counts the nodes of a tree without following aliases.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, m := range n.Content {
		c += countNodes(m)
	}
	return c
}

// add records a problem with the field at node n; the message is the field
// path, a colon and the reason.
func (d *decoder) add(n *yaml.Node, field, format string, args ...any) {
	d.addMsg(n, field, join(field, fmt.Sprintf(format, args...)))
}

func (d *decoder) addMsg(n *yaml.Node, field, msg string) {
	p := located{Problem: Problem{Field: field, Msg: msg}}
	if n != nil {
		p.Line, p.col = n.Line, n.Column
	}
	d.problems = append(d.problems, p)
}

// join prefixes a reason with its field path.
func join(field, reason string) string {
	if field == "" {
		return reason
	}
	return field + ": " + reason
}

// child returns the path of field name below path.
func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// resolve follows YAML aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			return fmt.Sprintf("string %q", n.Value)
		}
		return n.Value
	}
	return "document"
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// decode decodes n into v (addressable), which keeps its value on a problem.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	n = resolve(n)
	if d.visits++; d.visits > d.limit {
		if d.visits == d.limit+1 {
			d.add(n, path, "the document has too many nodes (aliases expand to more than %d)", d.limit)
		}
		return
	}
	switch x := v.Addr().Interface().(type) {
	case nodeDecoder:
		x.decodeNode(d, n, path)
		return
	case encoding.TextUnmarshaler:
		if s, ok := d.scalar(n, path); ok {
			if err := x.UnmarshalText([]byte(s)); err != nil {
				d.add(n, path, "%v", err)
			}
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.fields(n, v, path)
	case reflect.Slice:
		d.list(n, v, path)
	case reflect.Map:
		d.entries(n, v, path)
	case reflect.String:
		if s, ok := d.str(n, path); ok {
			v.SetString(s)
		}
	case reflect.Int, reflect.Int64:
		if i, ok := d.integer(n, path); ok {
			v.SetInt(i)
		}
	case reflect.Float64:
		if f, ok := d.number(n, path); ok {
			v.SetFloat(f)
		}
	case reflect.Bool:
		if b, ok := d.boolean(n, path); ok {
			v.SetBool(b)
		}
	default:
		panic(fmt.Sprintf("specs: no decoder for %s (%s)", v.Type(), path))
	}
}

// fields decodes mapping n into struct v: known fields only, each once; a
// null value counts as absent; required fields must be given.
func (d *decoder) fields(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.add(n, path, "expected a mapping of fields, not a %s", kindName(n))
		return
	}
	known := fieldsOf(v.Type())
	given := map[string]int{} // name → line
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], resolve(n.Content[i+1])
		name := k.Value
		field := child(path, name)
		if line, dup := given[name]; dup {
			d.add(k, field, "given twice (first on line %d)", line)
			continue
		}
		given[name] = k.Line
		j := slices.IndexFunc(known, func(f fieldInfo) bool { return f.name == name })
		if j < 0 || k.Kind != yaml.ScalarNode {
			where := "at top level"
			if path != "" {
				where = "in " + path
			}
			d.addMsg(k, field, fmt.Sprintf("unknown field %q %s%s", name, where, suggest(name, fieldNames(known))))
			continue
		}
		d.at[field] = place{key: k, value: val}
		if isNull(val) {
			delete(given, name)
			continue
		}
		fv := v.FieldByIndex(known[j].index)
		before := len(d.problems)
		if known[j].bytes {
			size := ByteSize(fv.Int())
			d.decode(val, reflect.ValueOf(&size).Elem(), field)
			fv.SetInt(int64(size))
		} else {
			d.decode(val, fv, field)
		}
		if known[j].nonEmpty && len(d.problems) == before && fv.Kind() == reflect.String && fv.String() == "" {
			d.add(val, field, "is empty")
		}
	}
	for _, f := range known {
		if _, ok := given[f.name]; !ok && f.required {
			msg := "missing"
			if f.hint != "" {
				msg += " (" + f.hint + ")"
			}
			d.problems = append(d.problems, located{Problem: Problem{Field: child(path, f.name), Msg: join(child(path, f.name), msg), Line: n.Line}, col: n.Column, whole: true})
		}
	}
}

// list decodes a sequence into slice v; an element with a problem is left
// out.
func (d *decoder) list(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.add(n, path, "expected a list, not a %s", kindName(n))
		return
	}
	out := reflect.MakeSlice(v.Type(), 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		p := fmt.Sprintf("%s[%d]", path, i)
		d.at[p] = place{value: item}
		if isNull(item) {
			d.add(item, p, "is empty")
			continue
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if d.decodeElem(item, e, p) {
			out = reflect.Append(out, e)
		}
	}
	v.Set(out)
}

// entries decodes a mapping whose keys are data (languages, terms, months),
// not field names, into map v; a null value counts as absent, an entry with
// a problem is left out.
func (d *decoder) entries(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.add(n, path, "expected a mapping, not a %s", kindName(n))
		return
	}
	out := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.add(k, path, "a key must be a string, not a %s", kindName(k))
			continue
		}
		p := child(path, k.Value)
		if seen[k.Value] {
			d.add(k, path, "key %q given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		d.at[p] = place{key: k, value: val}
		if isNull(val) {
			continue
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if d.decodeElem(val, e, p) {
			out.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), e)
		}
	}
	v.Set(out)
}

// decodeElem decodes an element of a list or mapping and reports whether
// to keep it: not when the element itself has a problem (a problem inside
// it, such as one bad weight of a vector, leaves the rest to be checked).
func (d *decoder) decodeElem(n *yaml.Node, e reflect.Value, path string) bool {
	before := len(d.problems)
	d.decode(n, e, path)
	return !slices.ContainsFunc(d.problems[before:], func(p located) bool { return p.Field == path })
}

// scalar returns the text of a scalar of any type.
func (d *decoder) scalar(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.add(n, field, "expected a string, not a %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

// str returns the value of a string scalar; a number, date or boolean
// where text is expected is refused (name: 5 is not the name "5").
func (d *decoder) str(n *yaml.Node, field string) (string, bool) {
	s, ok := d.scalar(n, field)
	if ok && n.Tag != "!!str" {
		d.add(n, field, "expected a string, not %s (quote it: %q)", kindName(n), s)
		return "", false
	}
	return s, ok
}

// integer parses a whole number.
func (d *decoder) integer(n *yaml.Node, field string) (int64, bool) {
	s, ok := d.scalar(n, field)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			d.add(n, field, "%s is too large", s)
		} else {
			d.add(n, field, "%q is not a whole number", s)
		}
		return 0, false
	}
	return i, true
}

// number parses a finite number.
func (d *decoder) number(n *yaml.Node, field string) (float64, bool) {
	s, ok := d.scalar(n, field)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		d.add(n, field, "%q is not a finite number", s)
		return 0, false
	}
	return f, true
}

func (d *decoder) boolean(n *yaml.Node, field string) (bool, bool) {
	s, ok := d.scalar(n, field)
	if !ok {
		return false, false
	}
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	d.add(n, field, "%q is not true or false", s)
	return false, false
}

// suggest returns ` (did you mean "x"?)` for the known name closest to
// name, if it is close.
func suggest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(name), k); dist < bestDist || dist == bestDist && best != "" && k < best {
			best, bestDist = k, dist
		}
	}
	if best == "" || bestDist > len(name)/2 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// locate gives the problems found after decoding (Validate's, which know
// only a field path) the position where their field is written, drops
// those about a field that already has a decoding problem (one report per
// field), and returns all problems: those at a written field in document
// order, then the others (missing fields, rules across fields) in the order
// found, at the line of the nearest enclosing field that is written.
func (d *decoder) locate(later []Problem) []Problem {
	all := d.problems
	// The fields with a decoding problem, and every field that contains
	// one (each problem's field and its parents): a look-up per later
	// problem instead of a pass over the decoding problems.
	decoded, containing := map[string]bool{}, map[string]bool{}
	for _, q := range d.problems {
		decoded[q.Field] = true
		containing[q.Field] = true
		for f := parent(q.Field); f != "" && !containing[f]; f = parent(f) {
			containing[f] = true
		}
	}
	for _, p := range later {
		if hasProblemAbove(p.Field, decoded) {
			continue
		}
		// "x: missing" when x was written but could not be read.
		if strings.HasPrefix(p.Msg, join(p.Field, "missing")) && containing[p.Field] {
			continue
		}
		l := located{Problem: p}
		if w, ok := d.at[p.Field]; ok && p.Field != "" {
			n := w.value
			if w.key != nil {
				n = w.key
			}
			l.Line, l.col = n.Line, n.Column
		} else {
			l.whole = true
			for f := parent(p.Field); ; f = parent(f) {
				if w, ok := d.at[f]; ok {
					l.Line, l.col = w.value.Line, w.value.Column
					break
				}
				if f == "" {
					break
				}
			}
		}
		all = append(all, l)
	}
	slices.SortStableFunc(all, func(a, b located) int {
		switch {
		case a.whole != b.whole:
			if a.whole {
				return 1
			}
			return -1
		case a.whole:
			return 0
		case a.Line != b.Line:
			return a.Line - b.Line
		}
		return a.col - b.col
	})
	out := make([]Problem, len(all))
	for i, p := range all {
		out[i] = p.Problem
	}
	return out
}

// within reports whether path is field or below it.
// hasProblemAbove reports whether path or a field containing it is in
// fields (within(path, f) for some f of fields; "" contains only itself).
func hasProblemAbove(path string, fields map[string]bool) bool {
	if path == "" {
		return fields[""]
	}
	for f := path; f != ""; f = parent(f) {
		if fields[f] {
			return true
		}
	}
	return false
}

func within(path, field string) bool {
	return path == field || strings.HasPrefix(path, field+".") || strings.HasPrefix(path, field+"[")
}

// parent returns the path of the field that contains path ("" for a
// top-level field).
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

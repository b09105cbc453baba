package specs

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The format is declared once, by the struct tags of Spec (and of the types
// of its fields, and of original.go's types for the original format):
//
//	yaml:"name[,omitempty][,inline]"  the field's name in YAML and JSON;
//	                                  omitempty: not written when empty;
//	                                  inline: the struct's fields are
//	                                  fields of the enclosing level
//	required:"hint"                   the field must be given ("name:
//	                                  missing (hint)")
//	min:"n", max:"n"                  an integer field's least and
//	                                  greatest value
//	spec:"omitdefault"                not written when it has its
//	                                  Defaults() value
//	spec:"nonempty"                   a string that, when given, is not
//	                                  "" ("x: is empty")
//	spec:"bytes"                      an int64 written as a size (5MiB)
//
// The decoder (decode.go), the writer (write.go) and Validate read these tags;
// nothing else lists the fields.

// fieldInfo is one field of a tagged struct.
type fieldInfo struct {
	index       []int // reflect field index, through inline structs
	name        string
	omitEmpty   bool
	omitDefault bool
	nonEmpty    bool
	bytes       bool
	required    bool
	hint        string // for a required field
	hasMin      bool
	min         int64
	hasMax      bool
	max         int64
}

var fieldCache sync.Map // reflect.Type → []fieldInfo

// fieldsOf returns the format fields of struct type t in declaration order,
// with inline structs flattened. Fields without a yaml tag are not part of
// the format.
func fieldsOf(t reflect.Type) []fieldInfo {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]fieldInfo)
	}
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("yaml")
		if !ok || tag == "-" || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") {
			for _, f := range fieldsOf(sf.Type) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		f := fieldInfo{index: []int{i}, name: name, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")}
		f.hint, f.required = sf.Tag.Lookup("required")
		for _, opt := range strings.Split(sf.Tag.Get("spec"), ",") {
			switch opt {
			case "omitdefault":
				f.omitDefault = true
			case "nonempty":
				f.nonEmpty = true
			case "bytes":
				f.bytes = true
			case "":
			default:
				panic("specs: unknown spec tag option " + opt + " on " + t.Name() + "." + sf.Name)
			}
		}
		for _, bound := range []struct {
			tag string
			has *bool
			n   *int64
		}{{"min", &f.hasMin, &f.min}, {"max", &f.hasMax, &f.max}} {
			if m, ok := sf.Tag.Lookup(bound.tag); ok {
				n, err := strconv.ParseInt(m, 10, 64)
				if err != nil {
					panic("specs: bad " + bound.tag + " tag on " + t.Name() + "." + sf.Name)
				}
				*bound.has, *bound.n = true, n
			}
		}
		out = append(out, f)
	}
	fieldCache.Store(t, out)
	return out
}

// fieldNames returns the names of fs.
func fieldNames(fs []fieldInfo) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

package cdxj

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"strconv"
	"strings"
	"unicode/utf8"
)

// postRequest is what pywb's MethodQueryCanonicalizer needs of a request.
type postRequest struct {
	method, contentType, contentLength string
	hasLength                          bool
}

// maxQuery is pywb's MAX_QUERY_LENGTH (characters).
const maxQuery = 4096

// query turns a POST or PUT body into the query pywb appends to the URL:
// form data unescaped, multipart fields and JSON values (flattened by name)
// form-encoded, anything else base64 as __wb_post_data=…. AMF bodies, which
// pywb decodes with pyamf, add no query here.
func (p *postRequest) query(body io.Reader) (string, error) {
	m := strings.ToUpper(p.method)
	if m != "POST" && m != "PUT" || !p.hasLength {
		return "", nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(p.contentLength), 10, 64)
	if err != nil || n <= 0 {
		return "", nil
	}
	data, err := io.ReadAll(io.LimitReader(body, n))
	if err != nil {
		return "", err
	}
	ct := p.contentType
	binary := func() string { return "__wb_post_data=" + base64.StdEncoding.EncodeToString(data) }
	var q string
	switch {
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		if utf8.Valid(data) {
			q = unquotePlus(string(data))
		} else {
			q = binary()
		}
	case strings.HasPrefix(ct, "multipart/"):
		q = multipartQuery(ct, data, binary)
	case strings.HasPrefix(ct, "application/x-amf"):
		q = ""
	case strings.HasPrefix(ct, "application/json"):
		q, _ = jsonQuery(data)
	case strings.HasPrefix(ct, "text/plain"):
		var ok bool
		if q, ok = jsonQuery(data); !ok {
			q = binary()
		}
	default:
		q = binary()
	}
	if utf8.RuneCountInString(q) > maxQuery {
		r := []rune(q)
		q = string(r[:maxQuery])
	}
	return q, nil
}

// appendMethodQuery is pywb's append_query.
func appendMethodQuery(u, method, query string) string {
	if strings.ToUpper(method) == "GET" {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	s := u + sep + "__wb_method=" + strings.ToUpper(method)
	if query != "" {
		s += "&" + query
	}
	return s
}

// unquotePlus is python's urllib.parse.unquote_plus (UTF-8, errors replaced).
func unquotePlus(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b = append(b, byte(v))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

// quotePlus is python's urllib.parse.quote_plus.
func quotePlus(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
		}
	}
	return b.String()
}

func multipartQuery(ct string, data []byte, binary func() string) string {
	_, params, err := mime.ParseMediaType(ct)
	if err != nil || params["boundary"] == "" {
		return binary()
	}
	r := multipart.NewReader(bytes.NewReader(data), params["boundary"])
	var parts []string
	for {
		p, err := r.NextPart()
		if err != nil {
			break
		}
		v, _ := io.ReadAll(p)
		parts = append(parts, quotePlus(p.FormName())+"="+quotePlus(string(v)))
	}
	return strings.Join(parts, "&")
}

// jsonQuery is pywb's json_parse: every scalar is named after its nearest
// object key; repeated names become "name.2_", "name.3_", ….
func jsonQuery(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var names []string
	values := map[string]string{}
	dupes := map[string]int{}
	add := func(name, v string) {
		key := name
		if _, seen := values[name]; seen {
			if dupes[name] == 0 {
				dupes[name] = 1
			}
			dupes[name]++
			key = name + "." + strconv.Itoa(dupes[name]) + "_"
		}
		if _, seen := values[key]; !seen {
			names = append(names, key)
		}
		values[key] = v
	}
	var walk func(name string) bool
	walk = func(name string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						return false
					}
					if !walk(k.(string)) {
						return false
					}
				}
			case '[':
				for dec.More() {
					if !walk(name) {
						return false
					}
				}
			}
			_, err := dec.Token() // closing delimiter
			return err == nil
		default:
			if name != "" {
				add(name, pyStr(t))
			}
			return true
		}
	}
	if !walk("") {
		return "", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false // trailing data: python's json.loads fails
	}
	var parts []string
	for _, k := range names {
		parts = append(parts, quotePlus(k)+"="+quotePlus(values[k]))
	}
	return strings.Join(parts, "&"), true
}

// pyStr is python's str() of a decoded JSON scalar.
func pyStr(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case string:
		return t
	case json.Number:
		s := t.String()
		if !strings.ContainsAny(s, ".eE") {
			return normInt(s)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return s
		}
		return pyFloat(f)
	}
	return ""
}

// normInt writes an integer literal as python prints the int ("-0" → "0").
func normInt(s string) string {
	neg := strings.HasPrefix(s, "-")
	d := strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	switch {
	case d == "":
		return "0"
	case neg:
		return "-" + d
	}
	return d
}

// pyFloat is python's repr of a float.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp < -4 || exp >= 16 {
		return mant + "e" + fmtExp(exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func fmtExp(e int) string {
	sign := "+"
	if e < 0 {
		sign, e = "-", -e
	}
	return sign + strconv.Itoa(100 + e)[1:]
}

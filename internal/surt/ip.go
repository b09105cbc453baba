package surt

import (
	"bytes"
	"fmt"
)

// attemptIPFormats turns numeric hosts into dotted quads as the python
// library does: an all-digit host is taken modulo 2^32 ("3279880203" →
// "195.127.0.11"); hosts of one to four dot-separated numbers that match
// python's DECIMAL_IP or OCTAL_IP patterns are resolved with inet_aton rules
// (each number decimal, or octal with a leading 0; the last one fills the
// remaining bytes), which is what socket.gethostbyname_ex does for them.
func attemptIPFormats(host []byte) ([]byte, bool) {
	if len(host) == 0 {
		return nil, false
	}
	if allDigits(host) {
		var n uint32
		for _, c := range host {
			n = n*10 + uint32(c-'0') // arithmetic modulo 2^32, as python's & 0xffffffff
		}
		return dotted(n), true
	}
	parts := bytes.Split(host, []byte("."))
	if len(parts) > 4 {
		return nil, false
	}
	decimal := parts[0][0] >= '1' && parts[0][0] <= '9'
	for i, p := range parts {
		if len(p) == 0 || !allDigits(p) {
			return nil, false
		}
		if !decimal && (i == 0 && p[0] != '0' || !allOctal(p)) {
			return nil, false
		}
	}
	// inet_aton
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := atonNumber(p)
		if !ok {
			return nil, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i := 0; i < last; i++ {
		if vals[i] > 0xff {
			return nil, false
		}
		n |= vals[i] << (24 - 8*uint(i))
	}
	if vals[last] >= 1<<(8*uint(4-last)) {
		return nil, false
	}
	n |= vals[last]
	return dotted(uint32(n)), true
}

// atonNumber parses one inet_aton number: octal with a leading 0, else decimal.
func atonNumber(p []byte) (uint64, bool) {
	base := uint64(10)
	if len(p) > 1 && p[0] == '0' {
		base = 8
	}
	var v uint64
	for _, c := range p {
		d := uint64(c - '0')
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func allOctal(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '7' {
			return false
		}
	}
	return true
}

func dotted(n uint32) []byte {
	return fmt.Appendf(nil, "%d.%d.%d.%d", n>>24, n>>16&0xff, n>>8&0xff, n&0xff)
}

package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// ByteSize is a flag value such as 1GB, 500MB, 64KiB or 1000000.
type ByteSize int64

func (b *ByteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *ByteSize) Set(s string) error {
	n, err := ParseByteSize(s)
	if err != nil {
		return err
	}
	*b = ByteSize(n)
	return nil
}

// ParseByteSize parses a size with an optional unit: KB, MB, GB, TB (powers
// of 1000), KiB, MiB, GiB, TiB (powers of 1024; K, M, G alone too) or B.
func ParseByteSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			u, mult = strings.TrimSpace(strings.TrimSuffix(u, suf.s)), suf.m
			break
		}
	}
	f, err := strconv.ParseFloat(u, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("invalid size %q (examples: 1GB, 500MB, 64KiB, 1000000)", s)
	}
	return int64(f * float64(mult)), nil
}

package sandbox

// The wire format between shellguard and its sandbox helper: the helper
// spec (in argv), the report (fd 3) and a warm helper's call (fd 4).
//
// Both ends are the same build (the helper is this binary, or the
// standalone helper with the same build ID), so a value is its fields in
// declaration order with no names. Every value is one or more tokens
// "<decimal length>:<bytes>": a string is its bytes, an integer its
// decimal text (unsigned ones too), a bool 0 or 1, a slice its length (-1 for nil) then its
// elements, a pointer 0 (nil) or 1 then what it points to, a struct its
// exported fields (those encoding/json does not skip). The text holds no
// NUL unless a string does, so it can travel in argv.
//
// It replaces encoding/json on the launch path: encoding/json builds its
// per-type state on first use, which every helper, a new process, paid
// on the way to bash (about 0.5 ms for the spec alone).

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// wireAppend appends the encoding of v (a struct or a pointer to one) to b.
func wireAppend(b []byte, v any) []byte {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	return wireValue(b, rv)
}

func wireToken(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

func wireInt(b []byte, n int64) []byte {
	var tmp [20]byte
	return wireToken(b, string(strconv.AppendInt(tmp[:0], n, 10)))
}

func wireValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.String:
		return wireToken(b, v.String())
	case reflect.Bool:
		if v.Bool() {
			return wireToken(b, "1")
		}
		return wireToken(b, "0")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return wireInt(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var tmp [20]byte
		return wireToken(b, string(strconv.AppendUint(tmp[:0], v.Uint(), 10)))
	case reflect.Slice:
		if v.IsNil() {
			return wireInt(b, -1)
		}
		b = wireInt(b, int64(v.Len()))
		for i := 0; i < v.Len(); i++ {
			b = wireValue(b, v.Index(i))
		}
		return b
	case reflect.Pointer:
		if v.IsNil() {
			return wireInt(b, 0)
		}
		return wireValue(wireInt(b, 1), v.Elem())
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if wireSkip(t.Field(i)) {
				continue
			}
			b = wireValue(b, v.Field(i))
		}
		return b
	}
	panic("sandbox: wire: unsupported type " + v.Type().String())
}

// wireSkip: the fields encoding/json leaves out are left out here too.
func wireSkip(f reflect.StructField) bool {
	return !f.IsExported() || f.Tag.Get("json") == "-"
}

// errWire is returned for a malformed encoding.
var errWire = errors.New("malformed")

type wireReader struct {
	s string
	// budget bounds what the lengths read may make the decoder allocate
	// (slice elements), so that a malformed length cannot.
	budget int
}

func (r *wireReader) token() (string, error) {
	i := 0
	for i < len(r.s) && i < 12 && r.s[i] >= '0' && r.s[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(r.s) || r.s[i] != ':' {
		return "", errWire
	}
	n, err := strconv.Atoi(r.s[:i])
	if err != nil || n > len(r.s)-i-1 {
		return "", errWire
	}
	t := r.s[i+1 : i+1+n]
	r.s = r.s[i+1+n:]
	return t, nil
}

func (r *wireReader) int() (int64, error) {
	t, err := r.token()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, errWire
	}
	return n, nil
}

func (r *wireReader) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.String:
		t, err := r.token()
		if err != nil {
			return err
		}
		v.SetString(t)
		return nil
	case reflect.Bool:
		t, err := r.token()
		if err != nil || (t != "0" && t != "1") {
			return errWire
		}
		v.SetBool(t == "1")
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := r.int()
		if err != nil {
			return err
		}
		if v.OverflowInt(n) {
			return errWire
		}
		v.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		t, err := r.token()
		if err != nil {
			return err
		}
		n, err := strconv.ParseUint(t, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return errWire
		}
		v.SetUint(n)
		return nil
	case reflect.Slice:
		n, err := r.int()
		if err != nil {
			return err
		}
		if n == -1 {
			v.SetZero()
			return nil
		}
		// Every element takes at least two bytes ("0:"), so a length
		// beyond what is left is malformed.
		if n < 0 || n > int64(len(r.s)/2) || int(n) > r.budget {
			return errWire
		}
		r.budget -= int(n)
		s := reflect.MakeSlice(v.Type(), int(n), int(n))
		for i := 0; i < int(n); i++ {
			if err := r.value(s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Pointer:
		n, err := r.int()
		if err != nil {
			return err
		}
		switch n {
		case 0:
			v.SetZero()
			return nil
		case 1:
			p := reflect.New(v.Type().Elem())
			if err := r.value(p.Elem()); err != nil {
				return err
			}
			v.Set(p)
			return nil
		}
		return errWire
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if wireSkip(t.Field(i)) {
				continue
			}
			if err := r.value(v.Field(i)); err != nil {
				return err
			}
		}
		return nil
	}
	panic("sandbox: wire: unsupported type " + v.Type().String())
}

// wireDecode decodes s, all of it, into v (a pointer to a struct).
func wireDecode(s string, v any) error {
	rest, err := wireDecodePrefix(s, v)
	if err == nil && rest != "" {
		err = fmt.Errorf("wire: %d bytes left over", len(rest))
	}
	return err
}

// wireDecodePrefix decodes one value from the start of s into v (a
// pointer to a struct) and returns what follows it.
func wireDecodePrefix(s string, v any) (string, error) {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return s, fmt.Errorf("wire: decode into %T", v)
	}
	r := &wireReader{s: s, budget: len(s)}
	if err := r.value(p.Elem()); err != nil {
		return s, fmt.Errorf("wire: %w", err)
	}
	return r.s, nil
}

package sandbox

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// wireTypes are the values that travel between shellguard and the helper.
func wireTypes() []any {
	return []any{&helperSpec{}, &helperReport{}, &poolCall{}, &listenerInfo{}}
}

// fill sets every field the wire carries to a value other than its zero
// value (slices of two elements, or empty ones when empty is set), so that
// a field the format dropped shows in the round trip.
func fill(v reflect.Value, n *int, empty bool) {
	*n++
	switch v.Kind() {
	case reflect.String:
		// Colons and digits as in the format itself, a newline, and
		// bytes that are not UTF-8.
		v.SetString("12:x" + strconv.Itoa(*n) + "\n\xff:")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(-*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := uint64(*n)
		if v.Kind() == reflect.Uint64 {
			u += 1 << 63 // beyond int64
		}
		v.SetUint(u)
	case reflect.Slice:
		k := 2
		if empty {
			k = 0
		}
		s := reflect.MakeSlice(v.Type(), k, k)
		for i := 0; i < k; i++ {
			fill(s.Index(i), n, empty)
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), n, empty)
		v.Set(p)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !wireSkip(v.Type().Field(i)) {
				fill(v.Field(i), n, empty)
			}
		}
	default:
		panic("fill: " + v.Type().String())
	}
}

func TestWireRoundTrip(t *testing.T) {
	for _, proto := range wireTypes() {
		for _, empty := range []bool{false, true} {
			name := reflect.TypeOf(proto).Elem().Name()
			in := reflect.New(reflect.TypeOf(proto).Elem())
			n := 0
			fill(in.Elem(), &n, empty)
			b := wireAppend(nil, in.Interface())
			out := reflect.New(in.Elem().Type())
			if err := wireDecode(string(b), out.Interface()); err != nil {
				t.Fatalf("%s (empty slices %v): %v\n%s", name, empty, err, b)
			}
			if !reflect.DeepEqual(in.Interface(), out.Interface()) {
				t.Fatalf("%s (empty slices %v): round trip changed the value\nin:  %+v\nout: %+v", name, empty, in.Elem(), out.Elem())
			}
			// Decoding overwrites every field of a used value.
			if err := wireDecode(string(wireAppend(nil, reflect.New(in.Elem().Type()).Interface())), out.Interface()); err != nil {
				t.Fatal(err)
			}
			if !out.Elem().IsZero() {
				t.Fatalf("%s: decoding a zero value left fields set: %+v", name, out.Elem())
			}
		}
	}
	// nil and empty slices stay apart (a nil Masked is not an empty one).
	var c poolCall
	if err := wireDecode(string(wireAppend(nil, &poolCall{Env: []string{}})), &c); err != nil || c.Env == nil {
		t.Fatalf("empty slice decoded as %#v (%v)", c.Env, err)
	}
}

func TestWireRefusesMalformed(t *testing.T) {
	good := string(wireAppend(nil, &poolCall{Script: "true", Env: []string{"A=1"}, Dir: "/w"}))
	for _, s := range []string{
		"",
		good[:len(good)-1],
		good + "1:x",
		"4:true1:x", // a slice length that is not a number
		"4:true" + "99999999:" + strings.Repeat("1:a", 10) + "2:/w",
		"4:true-5:",
		"4:true2:-21:a1:b2:/w",
		"x",
		"1234567890123456:",
	} {
		var c poolCall
		if err := wireDecode(s, &c); err == nil {
			t.Errorf("%q decoded: %+v", s, c)
		}
	}
	// Values out of their type's range.
	type probe struct {
		B bool
		N int8
		P *struct{ S string }
	}
	for _, s := range []string{"1:23:1001:0", "1:13:2001:0", "1:11:01:2", "1:11:0"} {
		var p probe
		if err := wireDecode(s, &p); err == nil {
			t.Errorf("%q decoded: %+v", s, p)
		}
	}
	var p probe
	if err := wireDecode("1:13:-501:12:ok", &p); err != nil || !p.B || p.N != -50 || p.P == nil || p.P.S != "ok" {
		t.Errorf("probe: %+v %v", p, err)
	}
	var c poolCall
	if err := wireDecode(good, c); err == nil {
		t.Error("decoded into a non-pointer")
	}
}

func FuzzWireDecode(f *testing.F) {
	for _, v := range wireTypes() {
		n := 0
		fill(reflect.ValueOf(v).Elem(), &n, false)
		f.Add(string(wireAppend(nil, v)))
	}
	f.Add("3:abc")
	f.Fuzz(func(t *testing.T, s string) {
		for _, proto := range wireTypes() {
			v := reflect.New(reflect.TypeOf(proto).Elem()).Interface()
			if wireDecode(s, v) != nil {
				continue
			}
			// What decodes encodes to something that decodes to the
			// same value.
			w := reflect.New(reflect.TypeOf(proto).Elem()).Interface()
			if err := wireDecode(string(wireAppend(nil, v)), w); err != nil || !reflect.DeepEqual(v, w) {
				t.Fatalf("re-encoding %q: %v", s, err)
			}
		}
	})
}

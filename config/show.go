package config

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Entry is one value of the effective configuration and its origin.
type Entry struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// Entries lists every key (and every list element) with its value and
// source, in schema order.
func (c *Config) Entries() []Entry {
	var out []Entry
	for _, key := range schemaOrder {
		f := fields[key]
		src := c.Provenance[key].String()
		switch p := f.ptr(c).(type) {
		case *int:
			out = append(out, Entry{key, *p, src})
		case *int64:
			out = append(out, Entry{key, *p, src})
		case *bool:
			out = append(out, Entry{key, *p, src})
		case *string:
			out = append(out, Entry{key, *p, src})
		case *[]string:
			out = append(out, Entry{key, listValue(*p), src})
			for i, v := range *p {
				k := fmt.Sprintf("%s[%d]", key, i)
				out = append(out, Entry{k, v, c.Provenance[k].String()})
			}
		case *[]Rule:
			out = append(out, Entry{key, listValue(*p), src})
			for i, v := range *p {
				k := fmt.Sprintf("%s[%d]", key, i)
				var val any = v.Rule
				if len(v.Match)+len(v.NotMatch) > 0 {
					val = v
				}
				out = append(out, Entry{k, val, c.Provenance[k].String()})
			}
		case *[]Pattern:
			out = append(out, Entry{key, listValue(*p), src})
			for i, v := range *p {
				k := fmt.Sprintf("%s[%d]", key, i)
				out = append(out, Entry{k, v, c.Provenance[k].String()})
			}
		}
	}
	return out
}

func listValue[T any](l []T) any {
	if l == nil {
		return []T{}
	}
	return l
}

// Show writes the effective configuration with the source of every value:
// as text ("key = value  # source") or as JSON
// ({"config": {...}, "sources": [{key, value, source}], "files": [...]}).
func (c *Config) Show(w io.Writer, asJSON bool) error {
	entries := c.Entries()
	if asJSON {
		files := make([]string, 0, len(c.Files))
		for _, f := range c.Files {
			files = append(files, f.String())
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Config   *Config    `json:"config"`
			Sources  []Entry    `json:"sources"`
			Files    []string   `json:"files"`
			Searched []Searched `json:"searched"`
			Notes    []string   `json:"notes"`
		}{emptyLists(c), entries, files, listValue(c.Searched).([]Searched), listValue(c.Notes).([]string)})
	}
	for _, s := range c.Searched {
		state := "read"
		if !s.Found {
			state = "not found"
		}
		fmt.Fprintf(w, "# looked for the %s file %s: %s\n", s.Kind, s.Path, state)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "# note: %s\n", n)
	}
	if c.Workspace != "" {
		fmt.Fprintf(w, "# workspace %s\n", c.Workspace)
	}
	width := 0
	lines := make([]string, len(entries))
	for i, e := range entries {
		if _, isList := e.Value.([]string); isList && !strings.HasSuffix(e.Key, "]") && isEmptyList(e.Value) {
			lines[i] = fmt.Sprintf("%s = []", e.Key)
		} else {
			b, _ := json.Marshal(e.Value)
			lines[i] = fmt.Sprintf("%s = %s", e.Key, b)
		}
		width = max(width, len(lines[i]))
	}
	for i, e := range entries {
		if !strings.HasSuffix(e.Key, "]") && isList(e.Value) && !isEmptyList(e.Value) {
			continue // the elements follow, each with its source
		}
		if _, err := fmt.Fprintf(w, "%-*s  # %s\n", width, lines[i], e.Source); err != nil {
			return err
		}
	}
	return nil
}

// emptyLists returns a copy of c whose nil lists, at any depth, are
// empty: the JSON says [] for a list with nothing in it, never null.
func emptyLists(c *Config) *Config {
	cp := *c
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if f := v.Field(i); f.CanSet() {
					fill(f)
				}
			}
		case reflect.Slice:
			if v.IsNil() {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
				return
			}
			// Elements may share memory with c: fill a copy.
			n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(n, v)
			for i := 0; i < n.Len(); i++ {
				fill(n.Index(i))
			}
			v.Set(n)
		}
	}
	fill(reflect.ValueOf(&cp).Elem())
	return &cp
}

func isList(v any) bool {
	switch v.(type) {
	case []string, []Rule, []Pattern:
		return true
	}
	return false
}

func isEmptyList(v any) bool {
	switch l := v.(type) {
	case []string:
		return len(l) == 0
	case []Rule:
		return len(l) == 0
	case []Pattern:
		return len(l) == 0
	}
	return false
}

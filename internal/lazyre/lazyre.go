// Package lazyre holds regular expressions that are compiled on first use.
//
// Package-level regexp.MustCompile runs at program start, and shellguard's
// binary is started for every sandboxed command (it is its own sandbox
// helper), so every compiled-at-init expression is paid for on every
// command. A lazyre.RE costs nothing until it is used.
package lazyre

import (
	"regexp"
	"sync"
)

// RE is a regular expression compiled on first use. It is safe for
// concurrent use.
type RE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// New returns an RE for src; like regexp.MustCompile, an invalid src
// panics, but only on first use (tests exercise every expression).
func New(src string) *RE { return &RE{src: src} }

// Get returns the compiled expression.
func (r *RE) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

func (r *RE) String() string                             { return r.src }
func (r *RE) MatchString(s string) bool                  { return r.Get().MatchString(s) }
func (r *RE) Match(b []byte) bool                        { return r.Get().Match(b) }
func (r *RE) FindString(s string) string                 { return r.Get().FindString(s) }
func (r *RE) FindStringIndex(s string) []int             { return r.Get().FindStringIndex(s) }
func (r *RE) FindStringSubmatch(s string) []string       { return r.Get().FindStringSubmatch(s) }
func (r *RE) FindStringSubmatchIndex(s string) []int     { return r.Get().FindStringSubmatchIndex(s) }
func (r *RE) FindAllString(s string, n int) []string     { return r.Get().FindAllString(s, n) }
func (r *RE) FindAllStringIndex(s string, n int) [][]int { return r.Get().FindAllStringIndex(s, n) }
func (r *RE) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Get().FindAllStringSubmatch(s, n)
}
func (r *RE) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Get().FindAllStringSubmatchIndex(s, n)
}
func (r *RE) ReplaceAllString(src, repl string) string { return r.Get().ReplaceAllString(src, repl) }

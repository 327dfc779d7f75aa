package terminal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/sandbox"
)

// ChangeReviewer returns a function for shellguard.Config.ReviewChanges
// that shows the person at the terminal what a review run changed: each
// change with its unified diff (control characters shown as \xNN, so
// that nothing the command wrote acts on the terminal), then "Apply?
// [a]ll, [s]elect, [N]one". Select asks about each change in turn.
// Anything else applies nothing. A terminal that cannot be opened is an
// error: nothing is applied.
func ChangeReviewer(o *Options) func(ctx context.Context, req shellguard.Request, changes []sandbox.Change) ([]string, error) {
	if o == nil {
		o = &Options{}
	}
	return func(ctx context.Context, req shellguard.Request, changes []sandbox.Change) ([]string, error) {
		tty, done, err := o.ask("review")
		if err != nil {
			return nil, err
		}
		defer done()
		ShowChanges(tty, req.Command, changes)
		in := bufio.NewReader(tty)
		fmt.Fprint(tty, "Apply these changes to the workspace? [a]ll, [s]elect, [N]one: ")
		switch readAnswer(in) {
		case "a", "all":
			all := make([]string, len(changes))
			for i, c := range changes {
				all[i] = c.Path
			}
			return all, nil
		case "s", "select":
			var picked []string
			for _, c := range changes {
				fmt.Fprintf(tty, "Apply %s? [y/N] ", describeChange(c))
				if a := readAnswer(in); a == "y" || a == "yes" {
					picked = append(picked, c.Path)
				}
			}
			return picked, nil
		}
		return nil, nil
	}
}

// readAnswer reads one line (at most 256 bytes of it), lower-cased and
// trimmed.
func readAnswer(r *bufio.Reader) string {
	var b strings.Builder
	for b.Len() < 256 {
		c, err := r.ReadByte()
		if err != nil || c == '\n' {
			break
		}
		b.WriteByte(c)
	}
	return strings.ToLower(strings.TrimSpace(b.String()))
}

// ShowChanges writes what a review run of command changed: one line per
// change, then its diff or why there is none.
func ShowChanges(w io.Writer, command string, changes []sandbox.Change) {
	fmt.Fprintf(w, "\nshellguard: the command\n  %s\nchanged %d entries of the workspace; nothing of it has landed yet:\n", printable(command), len(changes))
	for i, c := range changes {
		fmt.Fprintf(w, "%3d. %s\n", i+1, describeChange(c))
		if c.Diff != "" {
			for _, line := range strings.SplitAfter(strings.TrimSuffix(c.Diff, "\n"), "\n") {
				fmt.Fprintf(w, "       %s\n", printable(strings.TrimSuffix(line, "\n")))
			}
		}
		if c.Note != "" {
			fmt.Fprintf(w, "       (%s)\n", printable(c.Note))
		}
	}
}

func describeChange(c sandbox.Change) string {
	s := c.Op + " " + c.Kind + " " + printable(c.Path)
	if c.Mode != "" {
		s += " (" + c.Mode + ")"
	}
	return s
}

// printable shows control characters (C0, DEL, C1; tab kept) and
// invalid UTF-8 as \xNN escapes, and format characters (bidi overrides,
// zero-width) as \uNNNN.
func printable(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == unicode.ReplacementChar && len(s[i:]) > 0 && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cf, r): // bidi overrides, zero-width
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

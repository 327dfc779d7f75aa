package terminal

import (
	"strings"
	"testing"
)

// TestCaretColumnsAfterWideCharacters: the carets sit under the span in
// terminal columns: a wide character before it takes two, a combining
// mark none.
func TestCaretColumnsAfterWideCharacters(t *testing.T) {
	for _, tc := range []struct {
		src, span  string
		col, width int
	}{
		{"echo 日本; rm -rf x", "rm -rf x", 11, 8},
		{"echo 😀 && rm -rf x", "rm -rf x", 11, 8},
		{"echo ｆｕｌｌ; rm -rf 目录", "rm -rf 目录", 15, 11},
		{"echo e\u0301; rm -rf x", "rm -rf x", 8, 8},
		{"echo plain; rm -rf x", "rm -rf x", 12, 8},
	} {
		start := strings.Index(tc.src, tc.span)
		_, col, width := caretLine(tc.src, start, start+len(tc.span))
		if col != tc.col || width != tc.width {
			t.Errorf("%q: column %d width %d, want %d and %d", tc.src, col, width, tc.col, tc.width)
		}
	}
}

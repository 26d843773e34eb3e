package bulk

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReader: whatever the bytes, each reader ends (io.EOF or a fatal error) without a
// panic, numbers its rows 0, 1, 2, … and echoes no input longer than the body (invalid UTF-8 read as U+FFFD, 3 bytes).
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"vat;country\nBE 0677.424.046;BE\n\"x\n",
		"\ufeffparticipant id,ref\n0208:0677424046,C-1\n",
		`{"documents":["Invoice"],"rows":["0208:0677424046",{"input":"x","country":"BE"}]}`,
		`{"rows":[{"input":"x"}],"documents":["Order"]}`,
		"\"0208:0677424046\"\n{\"input\":\"BE0677424046\"}\nnope\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, format := range []Format{CSV, NDJSON, JSON} {
			rd, err := NewReader(strings.NewReader(s), format, ReadOptions{})
			if err != nil {
				continue
			}
			for want := 0; ; want++ {
				row, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var re *ReadError
				if err != nil && (!errors.As(err, &re) || re.Fatal) {
					break
				}
				if row.Index != want || len(row.Input) > 3*len(s) {
					t.Fatalf("%s: row %+v, want index %d", format, row, want)
				}
			}
		}
	})
}

package directory

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/peppol"
)

func TestQueryValues(t *testing.T) {
	tests := []struct {
		name string
		q    Query
		want string
	}{
		{"participant", Query{Participant: peppol.ParticipantID{ICD: "0208", Value: "0677424046"}},
			"participant=iso6523-actorid-upis%3A%3A0208%3A0677424046"},
		{"participant value lower-cased", Query{Participant: peppol.ParticipantID{ICD: "9925", Value: "BE0677424046"}},
			"participant=iso6523-actorid-upis%3A%3A9925%3Abe0677424046"},
		{"text trimmed and escaped", Query{Q: "  Acme & Söhne GmbH "}, "q=Acme+%26+S%C3%B6hne+GmbH"},
		{"country upper-cased", Query{Country: " no "}, "country=NO"},
		{"all with paging", Query{Q: "coffee", Country: "be", PageSize: 50, PageIndex: 2},
			"country=BE&q=coffee&rpc=50&rpi=2"},
		{"page index with default size", Query{Q: "x", PageIndex: 49}, "q=x&rpi=49"},
		{"largest single page", Query{Q: "x", PageSize: 1001}, "q=x&rpc=1001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := tt.q.Values()
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Encode(); got != tt.want {
				t.Errorf("Values().Encode() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestQueryValidateErrors(t *testing.T) {
	tests := []struct {
		name    string
		q       Query
		mention string
	}{
		{"nothing", Query{}, "nothing to search"},
		{"only blanks", Query{Q: " \t "}, "nothing to search"},
		{"only paging", Query{PageSize: 10}, "nothing to search"},
		{"bad participant icd", Query{Participant: peppol.ParticipantID{ICD: "20", Value: "x"}}, "4 digits"},
		{"bad participant value", Query{Participant: peppol.ParticipantID{ICD: "0208", Value: "a b"}}, "may contain only"},
		{"country too long", Query{Country: "BEL"}, "2-letter"},
		{"country digits", Query{Country: "1E"}, "2-letter"},
		{"negative size", Query{Q: "x", PageSize: -1}, "page size must not be negative"},
		{"negative index", Query{Q: "x", PageIndex: -1}, "page index must not be negative"},
		{"past 1000 default size", Query{Q: "x", PageIndex: 50}, "beyond the Directory's limit"},
		{"past 1000 size 100", Query{Q: "x", PageSize: 100, PageIndex: 10}, "beyond"},
		{"size 1000 second page", Query{Q: "x", PageSize: 1000, PageIndex: 1}, "beyond"},
		{"size too large", Query{Q: "x", PageSize: 1002}, "beyond"},
		{"overflow", Query{Q: "x", PageSize: math.MaxInt, PageIndex: math.MaxInt}, "beyond"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.q.Validate()
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want error", tt.q)
			}
			var de *Error
			if !errors.Is(err, ErrBadQuery) || !errors.As(err, &de) || de.Status != 0 || errors.Is(err, ErrUnavailable) {
				t.Errorf("err = %#v, want *Error of KindBadQuery with Status 0", err)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("err = %q, want it to mention %q", err, tt.mention)
			}
		})
	}
}

func TestQueryParticipantIDError(t *testing.T) {
	err := Query{Participant: peppol.ParticipantID{ICD: "abcd", Value: "1"}}.Validate()
	var idErr *peppol.IDError
	if !errors.As(err, &idErr) {
		t.Errorf("err = %v, want it to wrap *peppol.IDError", err)
	}
}

// TestCheckPagingMatchesDirectoryRule compares checkPaging with the Directory's rule
// computed in int64 (no overflow for these inputs) over a grid around every boundary.
func TestCheckPagingMatchesDirectoryRule(t *testing.T) {
	sizes := []int{0, 1, 2, 3, 7, 19, 20, 21, 33, 50, 99, 100, 101, 250, 333, 500, 501, 999, 1000, 1001, 1002, 5000}
	for _, size := range sizes {
		for index := 0; index <= 1100; index++ {
			rpc := int64(size)
			if rpc == 0 {
				rpc = DefaultPageSize
			}
			first, last := int64(index)*rpc, int64(index+1)*rpc-1
			want := first <= MaxResultIndex && last <= MaxResultIndex
			if got := checkPaging(size, index) == nil; got != want {
				t.Fatalf("checkPaging(%d, %d) ok=%v, want %v (first %d, last %d)", size, index, got, want, first, last)
			}
		}
	}
}

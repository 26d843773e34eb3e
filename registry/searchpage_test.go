package registry

import "testing"

// TestLastSearchPage: the last page agrees with NextSearchPage: every page before it
// has a next page, it has none.
func TestLastSearchPage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ total, want int }{
		{0, 1}, {1, 1}, {25, 1}, {26, 2}, {50, 2}, {51, 3}, {1000, 40}, {5000, 40},
	} {
		last := LastSearchPage(tt.total)
		if last != tt.want {
			t.Errorf("LastSearchPage(%d) = %d, want %d", tt.total, last, tt.want)
		}
		for p := 1; p <= last; p++ {
			if next := NextSearchPage(p, tt.total); (p < last) != (next == p+1) || (p == last) != (next == 0) {
				t.Errorf("NextSearchPage(%d, %d) = %d, but the last page is %d", p, tt.total, next, last)
			}
		}
	}
	if got := SearchPageStart(2); got != MaxSearchResults+1 {
		t.Errorf("SearchPageStart(2) = %d", got)
	}
}

package web

import (
	"slices"
	"testing"
)

func TestPagerNumbers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		page, last int
		want       []int
	}{
		{1, 1, []int{1}},
		{2, 5, []int{1, 2, 3, 4, 5}},
		{1, 9, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{1, 40, []int{1, 2, 3, 0, 40}},
		{20, 40, []int{1, 0, 18, 19, 20, 21, 22, 0, 40}},
		{4, 40, []int{1, 2, 3, 4, 5, 6, 0, 40}},
		{40, 40, []int{1, 0, 38, 39, 40}},
	} {
		if got := pagerNumbers(tt.page, tt.last); !slices.Equal(got, tt.want) {
			t.Errorf("pagerNumbers(%d, %d) = %v, want %v", tt.page, tt.last, got, tt.want)
		}
	}
}

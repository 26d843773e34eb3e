package server

import (
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

func TestSharedSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  registry.SearchResult
		want bool
	}{
		{"live, from the cache", registry.SearchResult{Source: registry.SourceDirectory}, true},
		{"mirror", registry.SearchResult{Source: registry.SourceMirror}, false},
		{"live after a stale mirror", registry.SearchResult{Source: registry.SourceDirectory, Warnings: []registry.Warning{{Code: registry.WarnMirrorStale}}}, false},
		{"live after an empty mirror", registry.SearchResult{Source: registry.SourceDirectory, Warnings: []registry.Warning{{Code: registry.WarnMirrorUnavailable}}}, false},
	}
	for _, tt := range tests {
		if got := sharedSearch(&tt.res); got != tt.want {
			t.Errorf("%s: shared %v, want %v", tt.name, got, tt.want)
		}
	}
}

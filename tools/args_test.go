package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

func TestDecodeArgs(t *testing.T) {
	t.Parallel()
	type args struct {
		A *string `json:"a"`
		B int     `json:"b"`
	}
	tests := []struct {
		raw    string
		wantIn string // "" means success
	}{
		{raw: ``}, {raw: `null`}, {raw: `{}`}, {raw: ` {"a":"x","b":2} `},
		{raw: `{"c":1}`, wantIn: `unknown argument "c"; t takes a and b`},
		{raw: `{"a":1}`, wantIn: "argument a of t must be a JSON string, not a JSON number"},
		{raw: `{"b":"x"}`, wantIn: "argument b of t must be a JSON integer, not a JSON string"},
		{raw: `[1]`, wantIn: "must be a JSON object with a and b"},
		{raw: `"a"`, wantIn: "must be a JSON object"},
		{raw: `{"a":"x"} {}`, wantIn: "must be a JSON object"},
		{raw: `{"a":`, wantIn: "must be a JSON object"},
	}
	for _, tt := range tests {
		var a args
		err := decodeArgs("t", json.RawMessage(tt.raw), &a, "a and b")
		switch {
		case tt.wantIn == "" && err != nil:
			t.Errorf("%s: %v", tt.raw, err)
		case tt.wantIn != "" && (registry.ErrorCode(err) != registry.CodeInvalidRequest || !strings.Contains(err.Error(), tt.wantIn)):
			t.Errorf("%s: %v, want invalid_request containing %q", tt.raw, err, tt.wantIn)
		}
	}
}

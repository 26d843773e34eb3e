package server

import (
	"net/url"
	"testing"
)

var queryCases = []string{
	"", "q=acme", "q=", "q", "q=a&q=b", "country=BE&q=x+y", "q=%C3%BCller", "q=%zz&q=ok",
	"q=a;b&q=c", "%71=encoded-key", "q=a%26b&country=no", "&&q=1&&", "x=1&country=%2", "country=be;q=1",
	"q=%", "q=a=b=c",
}

// queryValue must agree with url.ParseQuery, which it replaces on the hot path.
func TestQueryValue(t *testing.T) {
	for _, raw := range queryCases {
		for _, key := range []string{"q", "country"} {
			checkQueryValue(t, raw, key)
		}
	}
}

func FuzzQueryValue(f *testing.F) {
	for _, raw := range queryCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkQueryValue(t, raw, "q") })
}

func checkQueryValue(t *testing.T, raw, key string) {
	t.Helper()
	v, _ := url.ParseQuery(raw)
	want, wantOK := v[key]
	got, ok := queryValue(raw, key)
	if ok != wantOK || (ok && got != want[0]) {
		t.Errorf("queryValue(%q, %q) = %q, %v; url.ParseQuery gives %q", raw, key, got, ok, want)
	}
}

package sml

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
)

const testName = "y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq.iso6523-actorid-upis.participant.sml.prod.tech.peppol.org"

func TestApplyRegexp(t *testing.T) {
	tests := []struct {
		name, rule, in string
		want           string // "" means the rule must be rejected
	}{
		{"dot-star", `!.*!https://smp.example.com/!`, testName, "https://smp.example.com/"},
		{"anchored", `!^.*$!https://smp.example.com/smp!`, testName, "https://smp.example.com/smp"},
		{"http kept as published", `!.*!http://test-infra.peppol.at!`, testName, "http://test-infra.peppol.at"},
		{"other delimiter", `/^.*$/https:\/\/smp.example.com\/x/`, testName, "https://smp.example.com/x"},
		{"hash delimiter", `#.*#https://smp.example.com/#`, testName, "https://smp.example.com/"},
		{"escaped delimiter in replacement", `!.*!https://smp.example.com/a\!b!`, testName, "https://smp.example.com/a!b"},
		{"escaped delimiter in ERE", `|^y7dz\|x|https://smp.example.com/|`, testName, ""},
		{"i flag", `!^Y7DZ.*PEPPOL\.ORG$!https://smp.example.com/!i`, testName, "https://smp.example.com/"},
		{"case-sensitive without i", `!^Y7DZ.*$!https://smp.example.com/!`, testName, ""},
		{"backreference", `!^([a-z0-9]+)\..*$!https://smp.example.com/\1!`, testName, "https://smp.example.com/y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq"},
		{"two backreferences", `!^([a-z0-9]{4}).*\.([a-z]+)$!https://\2.example.com/\1!`, testName, "https://org.example.com/y7dz"},
		{"unmatched optional group is empty", `!^(x)?.*$!https://smp.example.com/\1!`, testName, "https://smp.example.com/"},
		{"applied once, not globally", `!.*!https://smp.example.com/!`, "", "https://smp.example.com/"},
		{"leftmost-longest", `!(a|ab)(c|bcd)(d*)!https://\1.example.com/\3!`, "abcd", "https://a.example.com/"},
		{"upper-case scheme", `!.*!HTTPS://SMP.EXAMPLE.COM/!`, testName, "HTTPS://SMP.EXAMPLE.COM/"},

		{"empty", ``, testName, ""},
		{"no delimiter at all", `.*`, testName, ""},
		{"only one delimiter", `!.*`, testName, ""},
		{"missing last delimiter", `!.*!https://smp.example.com/`, testName, ""},
		{"digit delimiter", `1.*1https://smp.example.com/1`, testName, ""},
		{"backslash delimiter", `\.*\https://smp.example.com/\`, testName, ""},
		{"unknown flag", `!.*!https://smp.example.com/!g`, testName, ""},
		{"bad ERE", `!(.*!https://smp.example.com/!`, testName, ""},
		{"bad ERE repetition", `!a{2000}!https://smp.example.com/!`, testName, ""},
		{"backreference beyond groups", `!^(.*)$!https://smp.example.com/\2!`, testName, ""},
		{"no match", `!^nomatch$!https://smp.example.com/!`, testName, ""},
		{"partial match keeps the rest (sed semantics)", `!^y7dz[a-z0-9]*!https://smp.example.com/!`, testName, "https://smp.example.com/" + testName[52:]},
		{"partial match at the end: not a URL", `!peppol\.org$!https://smp.example.com/!`, testName, ""},
		{"not a URL", `!.*!smp.example.com!`, testName, ""},
		{"relative URL", `!.*!/smp!`, testName, ""},
		{"ftp", `!.*!ftp://smp.example.com/!`, testName, ""},
		{"mailto", `!.*!mailto:smp@example.com!`, testName, ""},
		{"no host", `!.*!https:///path!`, testName, ""},
		{"space", `!.*!https://smp.example.com/a b!`, testName, ""},
		{"replacement domain instead of URL", `!.*!!`, testName, ""},
		{"query", `!.*!https://smp.example.com/?a=b!`, testName, ""},
		{"empty query", `!.*!https://smp.example.com/?!`, testName, ""},
		{"query without path", `!.*!https://smp.example.com?a=b!`, testName, ""},
		{"fragment", `!.*!https://smp.example.com/#x!`, testName, ""},
		{"empty fragment", `!.*!https://smp.example.com/#!`, testName, ""},
		{"user and password", `!.*!https://u:p@smp.example.com/!`, testName, ""},
		{"user only", `!.*!https://u@smp.example.com/!`, testName, ""},
		{"empty user info", `!.*!https://@smp.example.com/!`, testName, ""},
		{"encoded characters in the path are fine", `!.*!https://smp.example.com/a%3Fb/!`, testName, "https://smp.example.com/a%3Fb/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyRegexp(tt.rule, tt.in)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("applyRegexp(%q) = %q, want an error", tt.rule, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("applyRegexp(%q) = %q, %v; want %q", tt.rule, got, err, tt.want)
			}
		})
	}
}

// Regexps reach us through dns.NAPTR in presentation form; wireString must give back the
// exact bytes that were published.
func TestWireStringRoundTrip(t *testing.T) {
	for _, wire := range []string{
		`!.*!https://smp.example.com/!`,
		`!^(.*)$!https://smp.example.com/\1!`,
		`!.*!https://smp.example.com/"q"\\!`,
		"!.*!https://smp.example.com/\x01\xff!",
		`\`,
		``,
	} {
		rr := &dns.NAPTR{Hdr: dns.RR_Header{Name: "x.", Rrtype: dns.TypeNAPTR, Class: dns.ClassINET}, Regexp: presentation(wire), Replacement: "."}
		buf := make([]byte, 512)
		off, err := dns.PackRR(rr, buf, 0, nil, false)
		if err != nil {
			t.Fatalf("pack %q: %v", wire, err)
		}
		back, _, err := dns.UnpackRR(buf[:off], 0)
		if err != nil {
			t.Fatalf("unpack %q: %v", wire, err)
		}
		if got := wireString(back.(*dns.NAPTR).Regexp); got != wire {
			t.Errorf("wireString(%q) = %q, want %q", back.(*dns.NAPTR).Regexp, got, wire)
		}
	}
	if got := wireString(`a\999b\`); got != `a999b\` {
		t.Errorf("wireString of an out-of-range \\DDD = %q", got)
	}
}

// presentation escapes wire bytes the way zone files and dns.NAPTR fields expect.
func presentation(wire string) string {
	var b strings.Builder
	for i := 0; i < len(wire); i++ {
		switch c := wire[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c > '~':
			b.WriteString("\\" + string(rune('0'+c/100)) + string(rune('0'+c/10%10)) + string(rune('0'+c%10)))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func FuzzApplyRegexp(f *testing.F) {
	for _, seed := range []string{
		`!.*!https://smp.example.com/!`,
		`!^.*$!https://smp.example.com/smp!`,
		`/^(.*)$/https:\/\/\1.example.com\//i`,
		`!(a|ab)(c|bcd)(d*)!https://\1.example.com/\3!`,
		`!(.*!x!`,
		`\!`,
		"",
	} {
		f.Add(seed, testName)
	}
	f.Fuzz(func(t *testing.T, rule, name string) {
		got, err := applyRegexp(rule, name)
		if err != nil {
			return
		}
		if cerr := checkBaseURL(got); cerr != nil {
			t.Fatalf("applyRegexp(%q, %q) = %q, which is not an http(s) URL: %v", rule, name, got, cerr)
		}
		// Parsing once and applying must agree with the one-shot helper.
		sub, err := parseSubstitution(rule)
		if err != nil {
			t.Fatalf("applyRegexp accepted %q but parseSubstitution rejects it: %v", rule, err)
		}
		if again, err := sub.apply(name); err != nil || again != got {
			t.Fatalf("apply(%q) = %q, %v; applyRegexp gave %q", name, again, err, got)
		}
		_ = wireString(rule)
	})
}

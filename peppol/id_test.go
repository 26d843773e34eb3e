package peppol

import (
	"errors"
	"strings"
	"testing"
)

func TestParseParticipantID(t *testing.T) {
	value130 := strings.Repeat("a", 130)
	tests := []struct {
		name    string
		in      string
		want    ParticipantID
		wantErr string // substring of the error message; empty means success
	}{
		{"plain", "0208:0677424046", ParticipantID{"0208", "0677424046"}, ""},
		{"with scheme", "iso6523-actorid-upis::0208:0677424046", ParticipantID{"0208", "0677424046"}, ""},
		{"scheme any case", "ISO6523-ACTORID-UPIS::9915:Test", ParticipantID{"9915", "test"}, ""},
		{"value lower-cased", "9930:DE811152493", ParticipantID{"9930", "de811152493"}, ""},
		{"surrounding white space", " \t0088:5790000435975\r\n", ParticipantID{"0088", "5790000435975"}, ""},
		{"allowed punctuation", "0204:991-33333test-06", ParticipantID{"0204", "991-33333test-06"}, ""},
		{"plus and dot and underscore", "0242:123456-ab_c.d+e", ParticipantID{"0242", "123456-ab_c.d+e"}, ""},
		{"exactly 135 characters", "0208:" + value130, ParticipantID{"0208", value130}, ""},

		{"empty", "", ParticipantID{}, "participant id is empty"},
		{"only scheme prefix", "iso6523-actorid-upis::", ParticipantID{}, "participant id is empty"},
		{"no colon", "0677424046", ParticipantID{}, "has no ':'"},
		{"letters as scheme", "BE:123", ParticipantID{}, "scheme must be 4 digits, got 'BE'"},
		{"short scheme", "208:0677424046", ParticipantID{}, "scheme must be 4 digits, got '208'"},
		{"long scheme", "02080:0677424046", ParticipantID{}, "scheme must be 4 digits, got '02080'"},
		{"empty value", "0208:", ParticipantID{}, "value after '0208:' is empty"},
		{"136 characters", "0208:" + value130 + "a", ParticipantID{}, "participant id is 136 characters long; at most 135 are allowed"},
		{"space inside", "0208: 0677424046", ParticipantID{}, "found ' ' at position 6"},
		{"tilde is not allowed (docs/INTERFACE.md §2.1)", "0208:a~b", ParticipantID{}, "found '~' at position 7"},
		{"second colon", "0208:a%3Ab", ParticipantID{}, "found '%'"},
		{"colon in value", "0208:a:b", ParticipantID{}, "found ':'"},
		{"shell injection", "0208:abc;rm -rf", ParticipantID{}, "found ';'"},
		{"html injection", "0208:<script>", ParticipantID{}, "found '<'"},
		{"newline inside", "0208:abc\ndef", ParticipantID{}, `found '\n'`},
		{"unicode letter", "0208:müller", ParticipantID{}, "found 'ü'"},
		{"fullwidth digits scheme", "０２０８:1", ParticipantID{}, "scheme must be 4 digits"},
		{"double colon without scheme", "::0208:1", ParticipantID{}, "scheme must be 4 digits, got ''"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseParticipantID(tt.in)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseParticipantID(%q) error %v", tt.in, err)
				}
				if got != tt.want {
					t.Fatalf("ParseParticipantID(%q) = %#v, want %#v", tt.in, got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseParticipantID(%q) = %v, want error containing %q", tt.in, got, tt.wantErr)
			}
			var idErr *IDError
			if !errors.As(err, &idErr) || idErr.Input != tt.in {
				t.Fatalf("error %T %v is not an *IDError for the input", err, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q contains a raw line break", err)
			}
			if !got.IsZero() {
				t.Fatalf("got %v with an error", got)
			}
		})
	}
}

func TestParticipantIDForms(t *testing.T) {
	p := ParticipantID{ICD: "0208", Value: "0677424046"}
	if got, want := p.String(), "0208:0677424046"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := p.URI(), "iso6523-actorid-upis::0208:0677424046"; got != want {
		t.Errorf("URI() = %q, want %q", got, want)
	}
	if p.IsZero() || !(ParticipantID{}).IsZero() {
		t.Error("IsZero is wrong")
	}
}

func TestIDErrorQuotesLongInput(t *testing.T) {
	_, err := ParseParticipantID(strings.Repeat("x", 500))
	if err == nil {
		t.Fatal("no error")
	}
	if len(err.Error()) > 200 {
		t.Errorf("message is %d bytes long; long input should be shortened: %q", len(err.Error()), err)
	}
}

func TestPathEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"iso6523-actorid-upis::0088:123", "iso6523-actorid-upis%3A%3A0088%3A123"},
		{"iso6523-actorid-upis::0208:0677424046", "iso6523-actorid-upis%3A%3A0208%3A0677424046"},
		{"busdox-docid-qns::urn:x##y", "busdox-docid-qns%3A%3Aurn%3Ax%23%23y"},
		{"urn:peppol:doctype:pdf+xml", "urn%3Apeppol%3Adoctype%3Apdf%2Bxml"},
		{"a/b", "a%2Fb"},
		{"a b", "a%20b"},
		{"a~b._-", "a~b._-"},
		{"@*=?&%", "%40%2A%3D%3F%26%25"},
		{"é", "%C3%A9"},
		{"€", "%E2%82%AC"},
		{"\x00\xff", "%00%FF"},
		{"", ""},
		{"AZaz09", "AZaz09"},
	}
	for _, tt := range tests {
		if got := PathEscape(tt.in); got != tt.want {
			t.Errorf("PathEscape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

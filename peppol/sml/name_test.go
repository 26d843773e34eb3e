package sml

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/internal/fixtures"
	"github.com/peppolgate/peppolgate/peppol"
)

const scheme = ".iso6523-actorid-upis."

// Vectors of the NAPTR names (the Peppol SML specification's example, the reference
// library's BDXLURLProviderTest) and of the legacy CNAME names, each recomputed with
// Python's hashlib and copied label for label.
func TestNAPTRNameVectors(t *testing.T) {
	tests := []struct {
		icd, value string
		label      string
	}{
		{"0088", "123abc", "y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq"},
		{"0088", "123ABC", "y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq"},
		{"9915", "test", "eh5boavaktmbgzyh2a63dz4qov33fvp5nsdvqklucfraayoodw6a"},
		{"0010", "5798000000001", "xukhfqabqziki3ykvr2fhr4snfa3pf5vpq6k4tonv3lmvsy5arvq"},
		{"0088", "1234567890123", "sjsyvccmqyjxk3weuapffq4x3umcrf4qryherj4vovhmonh7gccq"},
		{"9999", "elonia", "hsh3fmc5cyerdv5j6ln6mmqcn2pp2ucyvczrwueahosobvikb6kq"},
		{"0192", "923609016", "xqk4t3fmtezduy5bovjmtnaq45n7e4tibyhwfpgot75bsp7uyg2a"},
		{"0208", "0677424046", "yrudm3nqrm76uobzh4griobewmqd4mx574cfdtm75zphrex4ydya"},
		{"0208", "0123456749", "hqlnrkedej3xevnxcnqilr5gx4hmdn4lws23cztjymy4mhl3plla"},
		{"0208", "0123456789", "wiqy2amtxx7migvxk5ut2tftl43qlgk7mjiiaxc25xnfmmg6isvq"},
		{"9925", "be0123456789", "g2hzdkpdsjhfzl5a7rsk4yvdff2epjdsrpg3wdhegteyeem2dmaq"},
		{"0192", "987654321", "y6tcr323hj5kyjwrq5lgyb4xatefqrzqeto6pj72mtn7c6ski2za"},
		{"0007", "123456", "v3knyeyd6am4knlfphvc624zi6rbkr27jlsyfmq7dvmqyfugenma"},
	}
	for _, tt := range tests {
		for _, zone := range []string{ZoneProduction, ZoneTest, ZoneProduction + ".", "Participant.SML.Prod.Tech.Peppol.Org."} {
			id := peppol.ParticipantID{ICD: tt.icd, Value: tt.value}
			got := NAPTRName(id, zone)
			want := tt.label + scheme + strings.ToLower(strings.TrimSuffix(zone, "."))
			if got != want {
				t.Errorf("NAPTRName(%s, %q) = %q, want %q", id, zone, got, want)
			}
		}
	}
}

// The scheme-less BDXL vectors of §1.5 cannot be a ParticipantID; they pin the hash.
func TestNAPTRLabelRawValues(t *testing.T) {
	tests := []struct{ value, label string }{
		{"abc", "xj4bnp4pahh6uqkbidpf3lrceoyagyndsylxvhfucd7wd4qacwwq"},
		{"ABC", "xj4bnp4pahh6uqkbidpf3lrceoyagyndsylxvhfucd7wd4qacwwq"},
	}
	for _, tt := range tests {
		if got := naptrLabel(tt.value); got != tt.label {
			t.Errorf("naptrLabel(%q) = %q, want %q", tt.value, got, tt.label)
		}
	}
	// Wrong inputs from the research notes must not be what we compute.
	wrong := map[string]string{
		"ABC not lower-cased":       "wxkaixb7izx2sh7czrvl46jdfinfptprat32e3trnyfb4j4j354a",
		"scheme:: prefix hashed in": "cs3ujt4pymrjou2evvbjqu5jo2cboc2qigif7p5xxhexsn6y3tva",
	}
	got := []string{naptrLabel("ABC"), NAPTRName(peppol.ParticipantID{ICD: "0088", Value: "123abc"}, ZoneProduction)}
	for what, w := range wrong {
		for _, g := range got {
			if strings.HasPrefix(g, w) {
				t.Errorf("%s: computed the wrong label %s", what, w)
			}
		}
	}
}

func TestLegacyCNAMENameVectors(t *testing.T) {
	tests := []struct {
		icd, value, zone string
		want             string
	}{
		{"0088", "123abc", ZoneProduction, "B-f5e78500450d37de5aabe6648ac3bb70.iso6523-actorid-upis.participant.sml.prod.tech.peppol.org"},
		{"0088", "123ABC", ZoneProduction, "B-f5e78500450d37de5aabe6648ac3bb70.iso6523-actorid-upis.participant.sml.prod.tech.peppol.org"},
		{"9915", "test", "acc.edelivery.tech.ec.europa.eu.", "B-85008b8279e07ab0392da75fa55856a2.iso6523-actorid-upis.acc.edelivery.tech.ec.europa.eu"},
		{"9908", "991825827", "edelivery.tech.ec.europa.eu", "b-770c6f5843e9e302de47ae4026307076.iso6523-actorid-upis.edelivery.tech.ec.europa.eu"},
		{"9948", "rs062525164", "acc.edelivery.tech.ec.europa.eu", "b-b48ffe78473f157220d171cdef6a3d8b.iso6523-actorid-upis.acc.edelivery.tech.ec.europa.eu"},
		{"0208", "0407214017", "acc.edelivery.tech.ec.europa.eu", "b-bbb3f462fb81fe13ecd0520be87c3a43.iso6523-actorid-upis.acc.edelivery.tech.ec.europa.eu"},
		// No zone: no trailing dot (the reference's own vector).
		{"0088", "123abc", "", "B-f5e78500450d37de5aabe6648ac3bb70.iso6523-actorid-upis"},
		{"0088", "123abc", ".", "B-f5e78500450d37de5aabe6648ac3bb70.iso6523-actorid-upis"},
	}
	for _, tt := range tests {
		id := peppol.ParticipantID{ICD: tt.icd, Value: tt.value}
		// DNS names are case-insensitive; the sources print "B-" and "b-".
		if got := LegacyCNAMEName(id, tt.zone); !strings.EqualFold(got, tt.want) || got != strings.ToLower(got) {
			t.Errorf("LegacyCNAMEName(%s, %q) = %q, want %q in lower case", id, tt.zone, got, tt.want)
		}
	}
	if got, want := legacyCNAMELabel(""), "b-d41d8cd98f00b204e9800998ecf8427e"; got != want {
		t.Errorf("legacyCNAMELabel(\"\") = %q, want %q", got, want)
	}
	if got := LegacyCNAMEName(peppol.ParticipantID{ICD: "0088", Value: "123abc"}, ZoneProduction); strings.Contains(got, "8221430510ed761473ce879293eccd7d") {
		t.Errorf("LegacyCNAMEName hashed the scheme prefix: %s", got)
	}
}

type upstreamVectors struct {
	NAPTR []struct {
		Value    string `json:"value"`
		Zone     string `json:"zone"`
		Expected string `json:"expected"`
		Observed []struct {
			Record   string `json:"record"`
			TTL      uint32 `json:"ttl"`
			Resolved string `json:"resolved_smp_url"`
		} `json:"naptr_observed"`
	} `json:"naptr_vectors"`
	CNAME []struct {
		Value    string `json:"value"`
		Zone     string `json:"zone"`
		Expected string `json:"expected"`
	} `json:"cname_legacy_vectors"`
}

func readUpstreamVectors(t *testing.T) upstreamVectors {
	t.Helper()
	b, err := os.ReadFile(fixtures.Upstream(t, "sml/dns-name-test-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v upstreamVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.NAPTR) < 7 || len(v.CNAME) < 4 {
		t.Fatalf("upstream vectors: %d NAPTR and %d CNAME vectors, want at least 7 and 4", len(v.NAPTR), len(v.CNAME))
	}
	return v
}

func TestUpstreamNameVectors(t *testing.T) {
	v := readUpstreamVectors(t)
	for _, vec := range v.NAPTR {
		id, err := peppol.ParseParticipantID(vec.Value)
		if err != nil {
			t.Errorf("%q: %v", vec.Value, err)
			continue
		}
		if got := NAPTRName(id, vec.Zone); got != strings.ToLower(vec.Expected) {
			t.Errorf("NAPTRName(%q, %q) = %q, want %q", vec.Value, vec.Zone, got, vec.Expected)
		}
	}
	for _, vec := range v.CNAME {
		var got string
		if id, err := peppol.ParseParticipantID(vec.Value); err == nil {
			got = LegacyCNAMEName(id, vec.Zone)
		} else {
			// The empty-value edge case is not a participant id; check the hash itself.
			got = legacyCNAMELabel(vec.Value) + scheme + normalizeZone(vec.Zone)
		}
		if !strings.EqualFold(got, vec.Expected) {
			t.Errorf("legacy name of %q in %q = %q, want %q", vec.Value, vec.Zone, got, vec.Expected)
		}
	}
}

func TestZoneFor(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"production", ZoneProduction, true},
		{"prod", ZoneProduction, true},
		{" PROD ", ZoneProduction, true},
		{"test", ZoneTest, true},
		{"Test", ZoneTest, true},
		{"", "", false},
		{"acc", "", false},
		{"edelivery.tech.ec.europa.eu", "", false},
	}
	for _, tt := range tests {
		got, err := ZoneFor(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ZoneFor(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), `"production"`) || !strings.Contains(err.Error(), `"test"`)) {
			t.Errorf("ZoneFor(%q) error %q does not list the valid names", tt.in, err)
		}
	}
}

package smp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

var (
	testPID     = peppol.ParticipantID{ICD: "0208", Value: "0677424046"}
	testDocType = Identifier{DocTypeScheme, bisInvoice}
)

// Request-URIs the SMP must see: the %-encoding must survive the Go HTTP stack.
const (
	groupPath    = "/iso6523-actorid-upis%3A%3A0208%3A0677424046"
	metadataPath = groupPath + "/services/busdox-docid-qns%3A%3Aurn%3Aoasis%3Anames%3Aspecification%3Aubl%3Aschema%3Axsd%3AInvoice-2%3A%3AInvoice%23%23urn%3Acen.eu%3Aen16931%3A2017%23compliant%23urn%3Afdc%3Apeppol.eu%3A2017%3Apoacc%3Abilling%3A3.0%3A%3A2.1"
)

// smpServer is a loopback SMP answering fixed bodies per Request-URI and recording
// what it received.
type smpServer struct {
	*httptest.Server
	t      *testing.T
	routes map[string]http.HandlerFunc
	hits   atomic.Int64
}

func newSMP(t *testing.T, routes map[string]http.HandlerFunc) *smpServer {
	t.Helper()
	s := &smpServer{t: t, routes: routes}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if h, ok := s.routes[r.RequestURI]; ok {
			h(w, r)
			return
		}
		t.Errorf("unexpected request %s %s", r.Method, r.RequestURI)
		http.Error(w, "unexpected path", http.StatusTeapot)
	}))
	t.Cleanup(s.Close)
	return s
}

func xmlBody(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		_, _ = w.Write(body)
	}
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(code)
		_, _ = fmt.Fprint(w, "<!-- not here -->")
	}
}

func redirectDoc(href string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?><ns2:SignedServiceMetadata xmlns:ns2="http://busdox.org/serviceMetadata/publishing/1.0/"><ns2:ServiceMetadata><ns2:Redirect href="` +
		href + `"><ns2:CertificateUID>CN=PGT000002,OU=PEPPOLGATE TEST SMP,O=Peppolgate Test,C=NO</ns2:CertificateUID></ns2:Redirect></ns2:ServiceMetadata></ns2:SignedServiceMetadata>`)
}

// wantErr checks err is an *Error of the kind, status and sentinel given.
func wantErr(t *testing.T, err error, kind Kind, status int) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Kind != kind || e.Status != status {
		t.Errorf("Kind, Status = %v, %d; want %v, %d (%v)", e.Kind, e.Status, kind, status, err)
	}
	notFound := kind == KindNotFound
	if errors.Is(err, ErrNotFound) != notFound || errors.Is(err, ErrUnavailable) == notFound {
		t.Errorf("errors.Is(ErrNotFound)=%v errors.Is(ErrUnavailable)=%v for kind %v", errors.Is(err, ErrNotFound), errors.Is(err, ErrUnavailable), kind)
	}
	return e
}

func TestClientServiceGroup(t *testing.T) {
	body := readTestdata(t, "servicegroup-ns2-prefixed.xml")
	var accept, ua, uri string
	srv := newSMP(t, map[string]http.HandlerFunc{
		"/smp" + groupPath: func(w http.ResponseWriter, r *http.Request) {
			accept, ua, uri = r.Header.Get("Accept"), r.Header.Get("User-Agent"), r.RequestURI
			xmlBody(body)(w, r)
		},
	})
	for _, base := range []string{srv.URL + "/smp", srv.URL + "/smp/"} {
		var c Client
		sg, err := c.ServiceGroup(context.Background(), base, testPID)
		if err != nil {
			t.Fatalf("base %s: %v", base, err)
		}
		if sg.Participant.Value != "0208:0677424046" || len(sg.DocumentTypes) != 4 || sg.DocumentTypes[0] != testDocType {
			t.Errorf("base %s: got %+v", base, sg)
		}
	}
	if uri != "/smp/iso6523-actorid-upis%3A%3A0208%3A0677424046" {
		t.Errorf("RequestURI = %q, want the %%3A-encoded id", uri)
	}
	if accept != "text/xml, application/xml" {
		t.Errorf("Accept = %q", accept)
	}
	if ua != DefaultUserAgent {
		t.Errorf("User-Agent = %q, want %q", ua, DefaultUserAgent)
	}
	c := Client{UserAgent: "peppolgate-test/9"}
	if _, err := c.ServiceGroup(context.Background(), srv.URL+"/smp", testPID); err != nil {
		t.Fatal(err)
	}
	if ua != "peppolgate-test/9" {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestClientServiceMetadataSigned(t *testing.T) {
	srv := newSMP(t, map[string]http.HandlerFunc{
		metadataPath: xmlBody(readTestdata(t, "signedservicemetadata-as4.xml")),
	})
	var c Client
	sm, err := c.ServiceMetadata(context.Background(), srv.URL, testPID, testDocType)
	if err != nil {
		t.Fatal(err)
	}
	if !sm.Signed || sm.FollowedRedirect != nil || sm.DocumentType != testDocType {
		t.Errorf("Signed=%v FollowedRedirect=%v DocumentType=%v", sm.Signed, sm.FollowedRedirect, sm.DocumentType)
	}
	e := sm.Processes[0].Endpoints[0]
	if e.Address != "https://ap.peppolgate.test/as4" || e.Certificate == nil || e.Certificate.SHA256 != testAPCert.SHA256 {
		t.Errorf("endpoint %+v", e)
	}
}

func TestClientFollowsRedirectOnce(t *testing.T) {
	// The href is used exactly as given, including its lower-case escapes.
	const targetPath = "/other/iso6523-actorid-upis%3a%3a0208%3a0677424046/services/busdox-docid-qns%3a%3aurn%3ax%2By"
	second := newSMP(t, map[string]http.HandlerFunc{
		targetPath: xmlBody(readTestdata(t, "signedservicemetadata-as4.xml")),
	})
	first := newSMP(t, map[string]http.HandlerFunc{
		metadataPath: xmlBody(redirectDoc(second.URL + targetPath)),
	})
	var c Client
	sm, err := c.ServiceMetadata(context.Background(), first.URL, testPID, testDocType)
	if err != nil {
		t.Fatal(err)
	}
	if sm.FollowedRedirect == nil || sm.FollowedRedirect.Href != second.URL+targetPath ||
		sm.FollowedRedirect.CertificateUID != testSMPCert.Subject {
		t.Errorf("FollowedRedirect = %+v", sm.FollowedRedirect)
	}
	if sm.Redirect != nil || sm.Participant.Value != "0208:0677424046" || sm.Processes[0].Endpoints[0].Address != "https://ap.peppolgate.test/as4" {
		t.Errorf("got %s", dump(sm))
	}
	if first.hits.Load() != 1 || second.hits.Load() != 1 {
		t.Errorf("hits = %d, %d; want 1, 1", first.hits.Load(), second.hits.Load())
	}
}

func TestClientRedirectErrors(t *testing.T) {
	t.Run("loop", func(t *testing.T) {
		var second *smpServer
		second = newSMP(t, map[string]http.HandlerFunc{
			"/again": func(w http.ResponseWriter, r *http.Request) {
				xmlBody(redirectDoc(second.URL+"/again"))(w, r)
			},
		})
		first := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(redirectDoc(second.URL + "/again"))})
		var c Client
		_, err := c.ServiceMetadata(context.Background(), first.URL, testPID, testDocType)
		wantErr(t, err, KindRedirectLoop, http.StatusOK)
		if second.hits.Load() != 1 {
			t.Errorf("second SMP hit %d times, want 1", second.hits.Load())
		}
	})
	t.Run("target 404", func(t *testing.T) {
		second := newSMP(t, map[string]http.HandlerFunc{"/gone": status(http.StatusNotFound)})
		first := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(redirectDoc(second.URL + "/gone"))})
		var c Client
		_, err := c.ServiceMetadata(context.Background(), first.URL, testPID, testDocType)
		e := wantErr(t, err, KindNotFound, http.StatusNotFound)
		if e.URL != second.URL+"/gone" {
			t.Errorf("URL = %s", e.URL)
		}
	})
	t.Run("bad href", func(t *testing.T) {
		second := newSMP(t, map[string]http.HandlerFunc{})
		tests := []struct {
			href string
			want string
		}{
			{"ftp://smp.example.com/x", "is not an absolute http(s) URL"},
			{"/relative/path", "is not an absolute http(s) URL"},
			{"mailto:smp@example.com", "is not an absolute http(s) URL"},
			{"http://[::1/x", "does not parse"},
			// An unencoded '#' would cut the path: the target would see
			// .../busdox-docid-qns::urn:x, 404, reported as "not found".
			{second.URL + "/iso6523-actorid-upis::0208:1/services/busdox-docid-qns::urn:x##urn:y::2.1", "has a fragment"},
			{second.URL + "/x#", "has a fragment"},
			{second.URL + "/x?participant=0208:1", "has a query"},
			{second.URL + "/x?", "has a query"},
			{strings.Replace(second.URL, "http://", "http://alice:s3cret@", 1) + "/x", "has user info"},
		}
		for _, tt := range tests {
			t.Run(tt.href, func(t *testing.T) {
				first := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(redirectDoc(tt.href))})
				var c Client
				_, err := c.ServiceMetadata(context.Background(), first.URL, testPID, testDocType)
				e := wantErr(t, err, KindMalformed, http.StatusOK)
				if e.URL != first.URL+metadataPath || !strings.Contains(err.Error(), "redirect href "+tt.want) || strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error = %v, want one about %s containing %q and no credentials", err, first.URL+metadataPath, tt.want)
				}
			})
		}
		if second.hits.Load() != 0 {
			t.Errorf("redirect target hit %d times, want 0", second.hits.Load())
		}
	})
}

// metadataDoc is a ServiceMetadata about the given participant and document type.
func metadataDoc(pidScheme, pid, docScheme, doc string) []byte {
	return []byte(`<ServiceMetadata xmlns="http://busdox.org/serviceMetadata/publishing/1.0/"><ServiceInformation>` +
		`<ParticipantIdentifier scheme="` + pidScheme + `">` + pid + `</ParticipantIdentifier>` +
		`<DocumentIdentifier scheme="` + docScheme + `">` + doc + `</DocumentIdentifier><ProcessList><Process>` +
		`<ProcessIdentifier scheme="cenbii-procid-ubl">` + bisProcess + `</ProcessIdentifier><ServiceEndpointList>` +
		`<Endpoint transportProfile="peppol-transport-as4-v2_0"><EndpointReference><Address>https://ap.peppolgate.test/as4</Address></EndpointReference></Endpoint>` +
		`</ServiceEndpointList></Process></ProcessList></ServiceInformation></ServiceMetadata>`)
}

func TestClientChecksSubject(t *testing.T) {
	const upis = "iso6523-actorid-upis"
	smp2 := func(pidScheme, pid, docScheme, doc string) []byte {
		return []byte(`<ServiceMetadata xmlns="http://docs.oasis-open.org/bdxr/ns/SMP/2/ServiceMetadata"><ID schemeID="` + docScheme + `">` + doc +
			`</ID><ParticipantID schemeID="` + pidScheme + `">` + pid + `</ParticipantID><ProcessMetadata><Endpoint><AddressURI>https://ap.peppolgate.test/as4</AddressURI></Endpoint></ProcessMetadata></ServiceMetadata>`)
	}
	tests := []struct {
		name string
		body []byte
		want string // "" means accepted; else the error contains it
	}{
		{"exact", metadataDoc(upis, "0208:0677424046", DocTypeScheme, bisInvoice), ""},
		{"participant in upper case", metadataDoc("ISO6523-ACTORID-UPIS", "0208:0677424046", DocTypeScheme, bisInvoice), ""},
		{"participant without scheme", smp2("", "0208:0677424046", DocTypeScheme, bisInvoice), ""},
		{"doc type scheme in upper case", metadataDoc(upis, "0208:0677424046", "BUSDOX-DOCID-QNS", bisInvoice), ""},
		{"doc type without scheme", smp2(upis, "0208:0677424046", "", bisInvoice), ""},
		{"other participant", metadataDoc(upis, "0208:0677424047", DocTypeScheme, bisInvoice),
			"the answer is about participant iso6523-actorid-upis::0208:0677424047, not the requested iso6523-actorid-upis::0208:0677424046"},
		{"other participant scheme", metadataDoc("other-scheme", "0208:0677424046", DocTypeScheme, bisInvoice),
			"the answer is about participant other-scheme::0208:0677424046"},
		{"other doc type", metadataDoc(upis, "0208:0677424046", DocTypeScheme, bisCreditNote),
			"the answer is about document type busdox-docid-qns::" + bisCreditNote + ", not the requested busdox-docid-qns::"},
		{"doc type in other case", metadataDoc(upis, "0208:0677424046", DocTypeScheme, strings.ToUpper(bisInvoice)),
			"the answer is about document type busdox-docid-qns::URN:OASIS"},
		{"other doc type scheme", metadataDoc(upis, "0208:0677424046", WildcardDocTypeScheme, bisInvoice),
			"the answer is about document type peppol-doctype-wildcard::"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(t *testing.T, sm *ServiceMetadata, err error, url string) {
				t.Helper()
				if tt.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					if sm.Processes[0].Endpoints[0].Address != "https://ap.peppolgate.test/as4" {
						t.Errorf("got %s", dump(sm))
					}
					return
				}
				e := wantErr(t, err, KindMalformed, http.StatusOK)
				if e.URL != url || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v\nwant one about %s containing %q", err, url, tt.want)
				}
			}
			t.Run("direct", func(t *testing.T) {
				srv := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(tt.body)})
				var c Client
				sm, err := c.ServiceMetadata(context.Background(), srv.URL, testPID, testDocType)
				check(t, sm, err, srv.URL+metadataPath)
			})
			t.Run("after redirect", func(t *testing.T) {
				second := newSMP(t, map[string]http.HandlerFunc{"/target": xmlBody(tt.body)})
				first := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(redirectDoc(second.URL + "/target"))})
				var c Client
				sm, err := c.ServiceMetadata(context.Background(), first.URL, testPID, testDocType)
				check(t, sm, err, second.URL+"/target")
			})
		})
	}
}

func TestClientStatus(t *testing.T) {
	tests := []struct {
		code int
		kind Kind
	}{
		{http.StatusNotFound, KindNotFound},
		{http.StatusInternalServerError, KindStatus},
		{http.StatusServiceUnavailable, KindStatus},
		{http.StatusBadRequest, KindStatus},
		{http.StatusNotAcceptable, KindStatus},
		{http.StatusGone, KindStatus},
		{http.StatusNotModified, KindStatus},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			srv := newSMP(t, map[string]http.HandlerFunc{groupPath: status(tt.code), metadataPath: status(tt.code)})
			var c Client
			_, err := c.ServiceGroup(context.Background(), srv.URL, testPID)
			e := wantErr(t, err, tt.kind, tt.code)
			if e.URL != srv.URL+groupPath {
				t.Errorf("URL = %s, want %s", e.URL, srv.URL+groupPath)
			}
			_, err = c.ServiceMetadata(context.Background(), srv.URL, testPID, testDocType)
			wantErr(t, err, tt.kind, tt.code)
		})
	}
}

func TestClientDoesNotFollowHTTPRedirects(t *testing.T) {
	var srv *smpServer
	srv = newSMP(t, map[string]http.HandlerFunc{
		groupPath: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, srv.URL+"/moved", http.StatusFound)
		},
		"/moved": xmlBody(readTestdata(t, "servicegroup-empty.xml")),
	})
	// Also with an HTTP client whose CheckRedirect would follow.
	for _, c := range []*Client{{}, {HTTP: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}}} {
		_, err := c.ServiceGroup(context.Background(), srv.URL, testPID)
		wantErr(t, err, KindStatus, http.StatusFound)
		if !strings.Contains(err.Error(), "HTTP redirects are not followed") {
			t.Errorf("error %q does not say why", err)
		}
	}
	if srv.hits.Load() != 2 {
		t.Errorf("server hit %d times, want 2 (the redirect target must not be requested)", srv.hits.Load())
	}
}

func TestClientMalformedBody(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"truncated XML", `<ns2:ServiceGroup xmlns:ns2="http://busdox.org/serviceMetadata/publishing/1.0/"><ParticipantIdentifier>`},
		{"HTML", `<html><body>Maintenance</body></html>`},
		{"empty", ``},
		{"JSON", `{"error": "oops"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSMP(t, map[string]http.HandlerFunc{groupPath: xmlBody([]byte(tt.body)), metadataPath: xmlBody([]byte(tt.body))})
			var c Client
			_, err := c.ServiceGroup(context.Background(), srv.URL, testPID)
			e := wantErr(t, err, KindMalformed, http.StatusOK)
			if !errors.Is(e, ErrMalformed) {
				t.Errorf("%v does not wrap ErrMalformed", err)
			}
			_, err = c.ServiceMetadata(context.Background(), srv.URL, testPID, testDocType)
			wantErr(t, err, KindMalformed, http.StatusOK)
		})
	}
}

func TestClientBodyTooLarge(t *testing.T) {
	big := []byte(`<ServiceGroup xmlns="http://busdox.org/serviceMetadata/publishing/1.0/"><ParticipantIdentifier scheme="iso6523-actorid-upis">0208:0677424046</ParticipantIdentifier><!--` +
		strings.Repeat("x", 4096) + `--></ServiceGroup>`)
	srv := newSMP(t, map[string]http.HandlerFunc{
		"/length" + groupPath: xmlBody(big), // Content-Length set by net/http
		"/chunked" + groupPath: func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < len(big); i += 512 {
				_, _ = w.Write(big[i:min(i+512, len(big))])
				w.(http.Flusher).Flush()
			}
		},
	})
	c := Client{MaxBody: 1024}
	for _, path := range []string{"/length", "/chunked"} {
		_, err := c.ServiceGroup(context.Background(), srv.URL+path, testPID)
		wantErr(t, err, KindTooLarge, http.StatusOK)
	}
	// The same document fits under the default limit.
	var d Client
	if _, err := d.ServiceGroup(context.Background(), srv.URL+"/chunked", testPID); err != nil {
		t.Errorf("default MaxBody: %v", err)
	}
}

func TestClientTimeouts(t *testing.T) {
	sleep := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}
	drip := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		_, _ = fmt.Fprint(w, `<ServiceGroup xmlns="http://busdox.org/serviceMetadata/publishing/1.0/">`)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
				_, _ = fmt.Fprint(w, " ")
				w.(http.Flusher).Flush()
			}
		}
	}
	srv := newSMP(t, map[string]http.HandlerFunc{"/sleep" + groupPath: sleep, "/drip" + groupPath: drip})

	t.Run("headers late, Client.Timeout", func(t *testing.T) {
		c := Client{Timeout: 50 * time.Millisecond}
		_, err := c.ServiceGroup(context.Background(), srv.URL+"/sleep", testPID)
		wantErr(t, err, KindTimeout, 0)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%v does not wrap context.DeadlineExceeded", err)
		}
	})
	t.Run("slow-drip body", func(t *testing.T) {
		// Long enough for the header (and its status) to arrive first on a busy machine.
		c := Client{Timeout: time.Second}
		_, err := c.ServiceGroup(context.Background(), srv.URL+"/drip", testPID)
		wantErr(t, err, KindTimeout, http.StatusOK)
	})
	t.Run("context deadline wins over Client.Timeout", func(t *testing.T) {
		c := Client{Timeout: time.Hour}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := c.ServiceGroup(ctx, srv.URL+"/sleep", testPID)
		wantErr(t, err, KindTimeout, 0)
	})
	t.Run("cancelled context", func(t *testing.T) {
		var c Client
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.ServiceGroup(ctx, srv.URL+"/sleep", testPID)
		wantErr(t, err, KindTransport, 0)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v does not wrap context.Canceled", err)
		}
	})
}

func TestClientConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	var c Client
	_, err := c.ServiceGroup(context.Background(), base, testPID)
	wantErr(t, err, KindTransport, 0)
}

func TestClientBadBase(t *testing.T) {
	for _, base := range []string{"", "smp.example.com", "ftp://smp.example.com", "http://[::1"} {
		var c Client
		_, err := c.ServiceGroup(context.Background(), base, testPID)
		wantErr(t, err, KindMalformed, 0)
	}
}

// TestClientRefusesBase checks that a base URL the path cannot be appended to is
// refused before anything is sent, without repeating credentials.
func TestClientRefusesBase(t *testing.T) {
	srv := newSMP(t, map[string]http.HandlerFunc{})
	withUser := strings.Replace(srv.URL, "http://", "http://alice:s3cret@", 1)
	tests := []struct {
		base    string
		wantURL string
		want    string
	}{
		{withUser + "/smp", srv.URL + "/smp", "SMP base URL has user info"},
		{strings.Replace(srv.URL, "http://", "http://alice@", 1), srv.URL, "SMP base URL has user info"},
		{srv.URL + "/smp?token=s3cret", srv.URL + "/smp", "SMP base URL has a query"},
		{srv.URL + "/smp?", srv.URL + "/smp", "SMP base URL has a query"},
		{srv.URL + "/smp#s3cret", srv.URL + "/smp", "SMP base URL has a fragment"},
		{srv.URL + "/smp#", srv.URL + "/smp", "SMP base URL has a fragment"},
		{withUser + "/smp?a=b#c", srv.URL + "/smp", "SMP base URL has user info"},
		{"http://alice:s3cret@[::1/smp", "(unparseable URL)", "SMP base URL does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			var c Client
			_, err := c.ServiceGroup(context.Background(), tt.base, testPID)
			e := wantErr(t, err, KindMalformed, 0)
			if e.URL != tt.wantURL || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error = %q, want URL %s, containing %q and no credentials", err, tt.wantURL, tt.want)
			}
			_, err = c.ServiceMetadata(context.Background(), tt.base, testPID, testDocType)
			wantErr(t, err, KindMalformed, 0)
		})
	}
	if srv.hits.Load() != 0 {
		t.Errorf("SMP hit %d times, want 0", srv.hits.Load())
	}
}

func TestErrorIs(t *testing.T) {
	for k := KindNotFound; k <= KindRefused; k++ {
		err := error(&Error{Kind: k})
		if errors.Is(err, ErrNotFound) != (k == KindNotFound) || errors.Is(err, ErrUnavailable) != (k != KindNotFound) {
			t.Errorf("kind %v: Is(ErrNotFound)=%v Is(ErrUnavailable)=%v", k, errors.Is(err, ErrNotFound), errors.Is(err, ErrUnavailable))
		}
		if strings.HasPrefix(k.String(), "Kind(") {
			t.Errorf("kind %d has no name", int(k))
		}
	}
	if errors.Is(&Error{Kind: KindStatus}, context.Canceled) {
		t.Error("Is matched an unrelated error")
	}
}

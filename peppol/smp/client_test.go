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
		targetPath: xmlBody(readTestdata(t, "signedservicemetadata-as2-default-ns.xml")),
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
	if sm.Redirect != nil || sm.Participant.Value != "0007:5567321707" {
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
	for _, href := range []string{"ftp://smp.example.com/x", "/relative/path", "mailto:smp@example.com"} {
		t.Run("bad href "+href, func(t *testing.T) {
			first := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(redirectDoc(href))})
			var c Client
			_, err := c.ServiceMetadata(context.Background(), first.URL, testPID, testDocType)
			wantErr(t, err, KindMalformed, http.StatusOK)
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
		c := Client{Timeout: 100 * time.Millisecond}
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

func TestClientErrorHidesCredentials(t *testing.T) {
	srv := newSMP(t, map[string]http.HandlerFunc{"/smp" + groupPath: status(http.StatusServiceUnavailable)})
	base := strings.Replace(srv.URL, "http://", "http://alice:s3cret@", 1) + "/smp"
	var c Client
	_, err := c.ServiceGroup(context.Background(), base, testPID)
	e := wantErr(t, err, KindStatus, http.StatusServiceUnavailable)
	want := "smp: GET " + srv.URL + "/smp" + groupPath + ": unexpected HTTP status: HTTP 503"
	if err.Error() != want || strings.Contains(e.URL, "s3cret") {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
}

func TestErrorIs(t *testing.T) {
	for k := KindNotFound; k <= KindRedirectLoop; k++ {
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

package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// verdictBox is the verdict section of a participant page.
var verdictBox = regexp.MustCompile(`(?s)<section class="verdict[^"]*"[^>]*>.*?</section>`)

// warningItems are the items of a participant page's "What to know" list.
var warningItems = regexp.MustCompile(`(?s)<li class="(?:blocking|notice)">.*?</li>`)

// TestParticipantPageVerdictWords: the verdict box of a participant whose access point
// certificate expired says so in words, not as a warning code, and the page lists the
// expired certificate once, not once from the lookup and again from the services.
func TestParticipantPageVerdictWords(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	_, body := e.getPage(t, "/participant/"+netsim.KnownCertExpired)
	box := verdictBox.Find(body)
	if box == nil {
		t.Fatalf("no verdict box:\n%s", body)
	}
	if codeLike.Match(box) || !bytes.Contains(box, []byte("certificate has expired")) {
		t.Errorf("verdict box speaks in codes, or does not say the certificate expired:\n%s", box)
	}
	expired := 0
	for _, li := range warningItems.FindAll(body, -1) {
		if bytes.Contains(li, []byte("(certificate_expired)")) {
			expired++
		}
	}
	if expired != 1 {
		t.Errorf("the expired certificate is listed %d times, want once:\n%s", expired, body)
	}
}

// blockingCode finds the code of a blocking item of a page's "What to know" list.
var blockingCode = regexp.MustCompile(`(?s)^<li class="blocking">.*\(([a-z_]+)\)`)

// TestParticipantPageVerdictPerKind: the verdict box of a participant that lists only
// credit notes, whose service expired, says sending credit notes fails, not invoices.
func TestParticipantPageVerdictPerKind(t *testing.T) {
	t.Parallel()
	e := startE2EOn(t, func(ds *netsim.Dataset) {
		p := ds.MustLookup(netsim.KnownServiceExpired)
		p.Services = slices.DeleteFunc(p.Services, func(s netsim.ServiceInfo) bool { return !strings.Contains(s.DocumentType.Value, "::CreditNote##") })
	}, nil, nil)
	_, body := e.getPage(t, "/participant/"+netsim.KnownServiceExpired)
	box := verdictBox.Find(body)
	if !bytes.Contains(box, []byte("sending credit notes would fail")) || bytes.Contains(box, []byte("sending invoices")) {
		t.Errorf("verdict box does not say sending credit notes fails, or speaks of invoices:\n%s", box)
	}
}

// codeLike matches a warning code: lower-case words joined by underscores.
var codeLike = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)

// door is what one front door said about a participant, as a verdict: its reach, the
// blocking codes it names, and the access point it shows ("" for none).
type door struct {
	reach   registry.Reach
	blocked []string
	ap      string
}

// verdictCase is a participant in a situation, and the verdict every door must give.
type verdictCase struct {
	name string
	id   string
	// edit changes the dataset before the network starts; setup the running network.
	edit  func(*netsim.Dataset)
	setup func(*e2e, *netsim.Participant)
	reach registry.Reach
	// code is a blocking warning code every door must name; "" for none.
	code string
	// askAbout is the document /ask is asked about: invoices or credit notes.
	askAbout string
	// servicesReach, when set, is the services doors' verdict: they read the
	// services alone, without the lookup the other doors judge from too.
	servicesReach registry.Reach
}

// TestVerdictAtEveryDoor: for every kind of block (signature invalid, missing or by a
// signer outside the network's SMP CA; an access point certificate expired, revoked or
// outside the network's AP CA), a document not listed, a participant not registered and
// an upstream failure, REST (participant and services), MCP (lookup_participant and
// get_participant_services), /ask, the participant page and the bulk check (NDJSON
// and CSV) give the same verdict, registry.Judge's, end to end over netsim; none shows
// an access point read from an answer that is not validly signed.
func TestVerdictAtEveryDoor(t *testing.T) {
	t.Parallel()
	signature := func(f netsim.SignatureFault) func(*e2e, *netsim.Participant) {
		return func(e *e2e, p *netsim.Participant) {
			e.net.SetFault(netsim.ParticipantTarget(p.ID), netsim.Fault{Signature: f})
		}
	}
	tests := []verdictCase{
		{name: "valid", id: netsim.KnownCertValid, reach: registry.Receives, askAbout: "invoices"},
		{name: "signature tampered", id: netsim.KnownCertValid, setup: signature(netsim.SignatureTampered), reach: registry.Blocked, code: registry.WarnSMPSignatureInvalid, askAbout: "invoices"},
		{name: "signature by another key", id: netsim.KnownCertValid, setup: signature(netsim.SignatureWrongKey), reach: registry.Blocked, code: registry.WarnSMPSignatureInvalid, askAbout: "invoices"},
		{name: "signer expired", id: netsim.KnownCertValid, setup: signature(netsim.SignatureExpiredSigner), reach: registry.Blocked, code: registry.WarnSMPSignatureInvalid, askAbout: "invoices"},
		{name: "signature missing", id: netsim.KnownCertValid, setup: signature(netsim.SignatureUnsigned), reach: registry.Blocked, code: registry.WarnSMPSignatureMissing, askAbout: "invoices"},
		{name: "signer outside the SMP CA", id: netsim.KnownCertValid, setup: signature(netsim.SignatureOtherCA), reach: registry.Blocked, code: registry.WarnSMPCertificateNotPeppol, askAbout: "invoices"},
		{name: "AP certificate expired", id: netsim.KnownCertExpired, reach: registry.Blocked, code: registry.WarnCertificateExpired, askAbout: "invoices"},
		{name: "AP certificate revoked", id: netsim.KnownCertValid, setup: func(e *e2e, p *netsim.Participant) {
			e.net.RevokeAccessPoint(p.Services[0].Processes[0].Endpoints[0].AccessPoint)
		}, reach: registry.Blocked, code: registry.WarnCertificateRevoked, askAbout: "invoices"},
		{name: "AP certificate outside the AP CA", id: netsim.KnownCertNonPeppolCA, reach: registry.Blocked, code: registry.WarnCertificateChainInvalid, askAbout: "invoices"},
		{name: "credit note not listed", id: netsim.KnownCertValid, edit: func(ds *netsim.Dataset) {
			p := ds.MustLookup(netsim.KnownCertValid)
			p.Services = slices.DeleteFunc(p.Services, func(s netsim.ServiceInfo) bool { return strings.Contains(s.DocumentType.Value, "::CreditNote##") })
		}, reach: registry.WithoutDocument, askAbout: "credit notes"},
		{name: "service expired", id: netsim.KnownServiceExpired, reach: registry.Blocked, code: registry.WarnServiceExpired, askAbout: "invoices"},
		{name: "service not yet active", id: netsim.KnownServiceNotYetActive, reach: registry.Blocked, code: registry.WarnServiceNotYetActive, askAbout: "invoices"},
		{name: "metadata not found", id: netsim.KnownCertValid, setup: func(e *e2e, p *netsim.Participant) {
			// Every ServiceMetadata of it redirects to where its SMP answers 404.
			e.net.SetRedirect(p.ID, strings.TrimSuffix(e.net.SMPBaseURL(p.SMPHost), "/")+"/nowhere")
		}, reach: registry.Blocked, code: registry.WarnEndpointNotFound, askAbout: "invoices"},
		{name: "metadata unavailable", id: netsim.KnownCertValid, setup: func(e *e2e, p *netsim.Participant) {
			// Every ServiceMetadata of it redirects to where nothing answers.
			e.net.SetRedirect(p.ID, "http://127.0.0.1:1/smp")
		}, reach: registry.Unknown, askAbout: "invoices"},
		{name: "credit note's AP certificate expired", id: netsim.KnownCertValid, edit: func(ds *netsim.Dataset) {
			// The invoice's endpoint is fine; the credit note's is the expired AP's.
			expired := ds.MustLookup(netsim.KnownCertExpired).Services[0].Processes[0].Endpoints[0]
			for _, s := range creditNotes(ds.MustLookup(netsim.KnownCertValid)) {
				procs := slices.Clone(s.Processes)
				for i := range procs {
					procs[i].Endpoints = slices.Clone(procs[i].Endpoints)
					for j := range procs[i].Endpoints {
						procs[i].Endpoints[j].AccessPoint, procs[i].Endpoints[j].Address = expired.AccessPoint, expired.Address
					}
				}
				s.Processes = procs
			}
		}, reach: registry.Blocked, code: registry.WarnCertificateExpired, askAbout: "credit notes"},
		{name: "credit note's metadata not found", id: netsim.KnownCertValid, edit: func(ds *netsim.Dataset) {
			// The invoice's endpoint is fine; the SMP answers 404 for the credit note's.
			for _, s := range creditNotes(ds.MustLookup(netsim.KnownCertValid)) {
				s.MetadataStatus = http.StatusNotFound
			}
		}, reach: registry.Blocked, code: registry.WarnEndpointNotFound, askAbout: "credit notes"},
		{name: "credit note's metadata unavailable", id: netsim.KnownCertValid, edit: func(ds *netsim.Dataset) {
			// The invoice's endpoint is fine; the SMP fails on the credit note's.
			for _, s := range creditNotes(ds.MustLookup(netsim.KnownCertValid)) {
				s.MetadataStatus = http.StatusInternalServerError
			}
		}, reach: registry.Unknown, askAbout: "credit notes"},
		{name: "services unreadable after the lookup", id: netsim.KnownCertValid, setup: func(e *e2e, p *netsim.Participant) {
			// The lookup is cached (it read the invoice's endpoint, fine); then the
			// SMP fails, so the services that would judge the credit note cannot
			// be read.
			reg, _, err := e.srv.nets.Select("")
			if err != nil {
				panic(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), mcpTestTimeout)
			defer cancel()
			if _, _, err := reg.Lookup(ctx, p.ID); err != nil {
				panic(err)
			}
			e.net.SetFault(netsim.SMPHostTarget(p.SMPHost), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
		}, reach: registry.Unknown, askAbout: "credit notes"},
		{name: "services not found after the lookup", id: netsim.KnownCertValid, setup: func(e *e2e, p *netsim.Participant) {
			// The lookup is cached (it read the invoice's endpoint, fine); then the
			// SMP answers 404 for its ServiceGroup: an upstream failure (the lookup
			// says it is registered), never "not found" nor "receives".
			reg, _, err := e.srv.nets.Select("")
			if err != nil {
				panic(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), mcpTestTimeout)
			defer cancel()
			if _, _, err := reg.Lookup(ctx, p.ID); err != nil {
				panic(err)
			}
			e.net.SetFault(netsim.SMPHostTarget(p.SMPHost), netsim.Fault{HTTPStatus: http.StatusNotFound})
		}, reach: registry.Unknown, askAbout: "credit notes", servicesReach: registry.NotRegistered},
		{name: "not registered", id: "0208:0000000097", reach: registry.NotRegistered, askAbout: "invoices"},
		{name: "upstream failed", id: netsim.KnownCertValid, setup: func(e *e2e, p *netsim.Participant) {
			e.net.SetFault(netsim.SMPHostTarget(p.SMPHost), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
		}, reach: registry.Unknown, askAbout: "invoices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startE2EOn(t, tt.edit, nil, nil)
			if tt.setup != nil {
				tt.setup(e, e.ds.MustLookup(tt.id))
			}
			ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
			defer cancel()
			c, _ := connectMCP(t, ctx, e.url, mcpClientVariants()[0])
			ap := apURL(e, tt.id)
			doors := map[string]door{
				"REST participant":             restDoor(t, e, "/api/v1/participant/"+tt.id),
				"REST services":                restDoor(t, e, "/api/v1/participant/"+tt.id+"/services"),
				"MCP lookup_participant":       mcpDoor(t, ctx, c, "lookup_participant", tt.id, ap),
				"MCP get_participant_services": mcpDoor(t, ctx, c, "get_participant_services", tt.id, ap),
				"/ask":                         askDoor(t, e, tt.id, tt.askAbout, ap),
				"participant page":             pageDoor(t, e, tt.id, ap),
				"POST /api/v1/check NDJSON":    checkDoor(t, e, tt.id, false),
				"POST /api/v1/check CSV":       checkDoor(t, e, tt.id, true),
			}
			for name, d := range doors {
				// Every door but the services answers (no lookup: no one endpoint
				// of the participant's to name) shows the access point of a
				// participant that receives.
				if tt.reach == registry.Receives && d.ap != ap && !strings.Contains(name, "services") {
					t.Errorf("%s: shows the access point %q, want %s", name, d.ap, ap)
				}
				want := tt.reach
				if tt.servicesReach != "" && strings.Contains(name, "services") {
					want = tt.servicesReach
				}
				if d.reach != want {
					t.Errorf("%s: %s, want %s", name, d.reach, want)
				}
				if tt.code != "" && !slices.Contains(d.blocked, tt.code) {
					t.Errorf("%s: blocked by %v, want %s among them", name, d.blocked, tt.code)
				}
				if tt.code == "" && len(d.blocked) > 0 {
					t.Errorf("%s: blocked by %v, want nothing", name, d.blocked)
				}
				if d.ap != "" && registry.Unverified(tt.code) {
					t.Errorf("%s: shows the access point %s read from an answer that is not validly signed", name, d.ap)
				}
			}
		})
	}
}

// creditNotes are p's credit note services, to edit in place.
func creditNotes(p *netsim.Participant) []*netsim.ServiceInfo {
	var out []*netsim.ServiceInfo
	for i := range p.Services {
		if strings.Contains(p.Services[i].DocumentType.Value, "::CreditNote##") {
			out = append(out, &p.Services[i])
		}
	}
	return out
}

// restDoor is the verdict of GET path: the answer's verdict, or not_registered for a
// 404 and unknown for a 502.
func restDoor(t *testing.T, e *e2e, path string) door {
	t.Helper()
	resp, body := e.get(t, path)
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return door{reach: registry.NotRegistered}
	case http.StatusBadGateway:
		return door{reach: registry.Unknown}
	default:
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	var v struct {
		Verdict  *registry.Verdict  `json:"verdict"`
		Warnings []registry.Warning `json:"warnings"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Verdict == nil {
		t.Fatalf("GET %s: no verdict (%v): %s", path, err, body)
	}
	explained(t, "GET "+path, v.Verdict.Blocked, v.Warnings)
	return door{reach: v.Verdict.Reach, blocked: v.Verdict.Blocked, ap: v.Verdict.AccessPoint}
}

// explained checks that every blocking code of a door's answer has its warning there,
// once: the warning says what to do about it.
func explained(t *testing.T, door string, blocked []string, warnings []registry.Warning) {
	t.Helper()
	for _, c := range blocked {
		n := 0
		for _, w := range warnings {
			if w.Code == c {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: blocked by %s, with %d warnings of that code, want 1", door, c, n)
		}
	}
}

// apURL is the URL of the access point the dataset gives id ("" for none).
func apURL(e *e2e, id string) string {
	pid, err := peppol.ParseParticipantID(id)
	if err != nil {
		return ""
	}
	p, ok := e.ds.Lookup(pid)
	if !ok || len(p.Services) == 0 || len(p.Services[0].Processes) == 0 || len(p.Services[0].Processes[0].Endpoints) == 0 {
		return ""
	}
	return p.Services[0].Processes[0].Endpoints[0].Address
}

// mcpDoor is the verdict of the MCP tool on id: its structured verdict, which its text
// must say too, or not_registered and unknown for its not_found and lookup_failed. Its
// access point is the structured one, or ap when the text names ap as the access point.
func mcpDoor(t *testing.T, ctx context.Context, c *client.Client, tool, id, ap string) door {
	t.Helper()
	res := callTool(t, ctx, c, tool, map[string]any{"participantId": id})
	text := resultText(res)
	if res.IsError {
		switch {
		case strings.HasPrefix(text, string(registry.CodeNotFound)+": "):
			return door{reach: registry.NotRegistered}
		case strings.HasPrefix(text, string(registry.CodeLookupFailed)+": "):
			return door{reach: registry.Unknown}
		}
		t.Fatalf("%s: %s", tool, text)
	}
	var v struct {
		Verdict *registry.Verdict `json:"verdict"`
	}
	if err := json.Unmarshal(res.RawStructuredContent, &v); err != nil || v.Verdict == nil {
		t.Fatalf("%s: no verdict (%v): %s", tool, err, res.RawStructuredContent)
	}
	if !strings.Contains(text, "Verdict: "+string(v.Verdict.Reach)) {
		t.Errorf("%s: the text does not say the verdict %s: %s", tool, v.Verdict.Reach, text)
	}
	d := door{reach: v.Verdict.Reach, blocked: v.Verdict.Blocked, ap: v.Verdict.AccessPoint}
	if ap != "" && strings.Contains(text, "Access point endpoint "+ap) {
		d.ap = ap
	}
	return d
}

// askDoor is /ask's verdict on whether id can receive what (invoices or credit notes),
// asked in JSON; and, asked which access point receives what for id, the answer must
// agree, and names its access point when its text names ap.
func askDoor(t *testing.T, e *e2e, id, what, ap string) door {
	t.Helper()
	d := askOne(t, e, "Can "+id+" receive "+what+"?", ap)
	if apd := askOne(t, e, "Which access point receives "+what+" for "+id+"?", ap); apd.reach != d.reach || !slices.Equal(apd.blocked, d.blocked) {
		t.Errorf("/ask: which access point: %+v, but can it receive: %+v", apd, d)
	} else if apd.ap != "" {
		d.ap = apd.ap
	}
	return d
}

// askOne is /ask's verdict in its answer to query, asked in JSON: the access point it
// names is ap when the text names it, else its item's endpoint.
func askOne(t *testing.T, e *e2e, query, ap string) door {
	t.Helper()
	resp := e.postAsk(t, t.Context(), `{"query":"`+query+`"}`, "Content-Type", "application/json")
	body := readAll(t, resp)
	if resp.StatusCode == http.StatusBadGateway {
		return door{reach: registry.Unknown}
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/ask: %d %s", resp.StatusCode, body)
	}
	a := decodeJSON[nlq.Answer](t, body)
	// The item's verdict (canReceive, unchecked) stands first: a failed call beside
	// it (its services read) must not hide what the item says.
	judged := len(a.Results) > 0 && a.Results[0].Peppol != nil && a.Results[0].Peppol.Registered && a.Results[0].Peppol.CanReceive != nil
	switch {
	case !judged && len(a.Failed) > 0:
		return door{reach: registry.Unknown}
	case len(a.Results) == 0 || a.Results[0].Peppol == nil || !a.Results[0].Peppol.Registered:
		return door{reach: registry.NotRegistered}
	}
	info := a.Results[0].Peppol
	d := door{blocked: info.Blocked}
	if info.Endpoint != nil {
		d.ap = info.Endpoint.URL
	}
	if ap != "" && strings.Contains(a.Answer, ap) {
		d.ap = ap
	}
	switch {
	case info.CanReceive == nil:
		t.Fatalf("/ask: no canReceive: %s", body)
	case info.Unchecked && !*info.CanReceive:
		d.reach = registry.Unknown
	case *info.CanReceive:
		d.reach = registry.Receives
	case len(info.Blocked) > 0:
		d.reach = registry.Blocked
	default:
		d.reach = registry.WithoutDocument
	}
	return d
}

// endpointCells are the endpoint cells of a participant page's services table.
var endpointCells = regexp.MustCompile(`(?s)<td data-label="Endpoint"[^>]*>(.*?)</td>`)

// pageDoor is the participant page's verdict, read from its verdict box, with the
// blocking codes its list of warnings explains (while its verdict box says them in
// words), and ap as its access point when its services table shows ap not marked
// "not verified".
func pageDoor(t *testing.T, e *e2e, id, ap string) door {
	t.Helper()
	resp, body := e.getPage(t, "/participant/"+id)
	switch resp.StatusCode {
	case http.StatusOK, http.StatusNotFound:
	case http.StatusBadGateway:
		return door{reach: registry.Unknown}
	default:
		t.Fatalf("page: %d %s", resp.StatusCode, body)
	}
	box := verdictBox.Find(body)
	if box == nil {
		t.Fatalf("page: no verdict box: %s", body)
	}
	if codeLike.Match(box) {
		t.Errorf("page: the verdict box speaks in codes: %s", box)
	}
	var d door
	switch {
	case bytes.Contains(box, []byte("Not on Peppol")):
		d.reach = registry.NotRegistered
	case bytes.Contains(box, []byte("Can receive invoices and credit notes")):
		d.reach = registry.Receives
	case bytes.Contains(box, []byte("Sending fails right now")):
		d.reach = registry.Blocked
	case bytes.Contains(box, []byte("could not be checked")):
		d.reach = registry.Unknown
	case bytes.Contains(box, []byte("but not credit notes")), bytes.Contains(box, []byte("but not invoices")), bytes.Contains(box, []byte("not for invoices or credit notes")):
		d.reach = registry.WithoutDocument
	default:
		t.Fatalf("page: a verdict box this test cannot read: %s", box)
	}
	for _, li := range warningItems.FindAll(body, -1) {
		if m := blockingCode.FindSubmatch(li); m != nil && !slices.Contains(d.blocked, string(m[1])) {
			d.blocked = append(d.blocked, string(m[1]))
		}
	}
	for _, cell := range endpointCells.FindAllSubmatch(body, -1) {
		if ap != "" && bytes.Contains(cell[1], []byte(ap)) && !bytes.Contains(cell[1], []byte("not verified")) {
			d.ap = ap
		}
	}
	return d
}

// checkDoor is the bulk check's verdict on a one-row list of id, as NDJSON or as CSV.
func checkDoor(t *testing.T, e *e2e, id string, asCSV bool) door {
	t.Helper()
	var r bulk.Result
	if asCSV {
		resp, body := e.postCheck(t, "", "text/csv", "id\n"+id+"\n", "Accept", "text/csv")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("check CSV: %d %s", resp.StatusCode, body)
		}
		recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil || len(recs) != 2 {
			t.Fatalf("check CSV (%v): %s", err, body)
		}
		col := func(name string) string { return recs[1][slices.Index(recs[0], name)] }
		r = bulk.Result{Status: bulk.Status(col("status")), AccessPoint: col("access_point"), Blocked: strings.Fields(col("blocked"))}
		for _, kind := range []string{"invoice", "credit_note"} {
			if v := col("receives_" + kind); v != "" {
				r.Documents = append(r.Documents, bulk.Document{Kind: kind, Receives: v == "yes"})
			}
		}
	} else {
		resp, body := e.postCheck(t, "", "application/json", `{"rows":["`+id+`"]}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("check: %d %s", resp.StatusCode, body)
		}
		got, sum := readNDJSON(t, body)
		r = got[0]
		explained(t, "check", r.Blocked, r.Warnings)
		if sum == nil || sum.Counts.Of(r.Status) != 1 {
			t.Errorf("check: summary %+v does not count the row's %s", sum, r.Status)
		}
	}
	d := door{blocked: r.Blocked, ap: r.AccessPoint}
	// A document kind receives as the verdict's does: sendable right now, not listed.
	every := len(r.Documents) > 0
	for _, doc := range r.Documents {
		every = every && doc.Receives
	}
	if every != (r.Status == bulk.Receives) {
		t.Errorf("check (CSV %v): status %s, but documents %+v", asCSV, r.Status, r.Documents)
	}
	switch r.Status {
	case bulk.Receives:
		d.reach = registry.Receives
	case bulk.Blocked:
		d.reach = registry.Blocked
	case bulk.RegisteredWithoutDocument:
		d.reach = registry.WithoutDocument
	case bulk.NotRegistered:
		d.reach = registry.NotRegistered
	case bulk.Failed:
		d.reach = registry.Unknown
		// An upstream failure, never "not found": a retry may help.
		if r.Error != nil && (r.Error.Code == string(registry.CodeNotFound) || !r.Error.Retryable) {
			t.Errorf("check (CSV %v): failed with %+v, want a retryable upstream failure", asCSV, r.Error)
		}
	default:
		t.Fatalf("check: %+v", r)
	}
	return d
}

// TestVerdictServicesReadOnce: the lookup of a participant that lists credit notes
// besides the invoice its lookup reads costs one services read, cached after that;
// one that lists the invoice alone costs none (registry.JudgeParticipant).
func TestVerdictServicesReadOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		edit  func(*netsim.Dataset)
		reach registry.Reach
		// serviceGroups is how many times the SMP is asked for the ServiceGroup.
		serviceGroups int64
	}{
		{name: "invoice and credit note", reach: registry.Receives, serviceGroups: 2},
		{name: "invoice alone", edit: func(ds *netsim.Dataset) {
			p := ds.MustLookup(netsim.KnownCertValid)
			p.Services = slices.DeleteFunc(p.Services, func(s netsim.ServiceInfo) bool { return !strings.Contains(s.DocumentType.Value, "::Invoice##") })
		}, reach: registry.WithoutDocument, serviceGroups: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startE2EOn(t, tt.edit, nil, nil)
			p := e.ds.MustLookup(netsim.KnownCertValid)
			e.net.ResetHits()
			for range 3 {
				if d := restDoor(t, e, "/api/v1/participant/"+netsim.KnownCertValid); d.reach != tt.reach {
					t.Fatalf("verdict %s, want %s", d.reach, tt.reach)
				}
			}
			h := e.net.Hits().SMP[p.SMPHost]
			// The lookup reads one ServiceMetadata, the services every one.
			wantSM := int64(1)
			if tt.serviceGroups > 1 {
				wantSM += int64(len(p.Services))
			}
			if h.ServiceGroup != tt.serviceGroups || h.ServiceMetadata != wantSM {
				t.Errorf("3 lookups asked the SMP %d ServiceGroup and %d ServiceMetadata, want %d and %d", h.ServiceGroup, h.ServiceMetadata, tt.serviceGroups, wantSM)
			}
		})
	}
}

// maxAge reads the max-age of a Cache-Control header, -1 when there is none.
func maxAge(h http.Header) int {
	_, v, ok := strings.Cut(h.Get("Cache-Control"), "max-age=")
	if !ok {
		return -1
	}
	v, _, _ = strings.Cut(v, ",")
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return -1
	}
	return n
}

// TestVerdictFreshness: a lookup whose verdict was judged from the services too is
// fresh only as long as they are: when the credit note's metadata could not be read
// (a services answer cached briefly), the lookup's answer is not cacheable for longer.
func TestVerdictFreshness(t *testing.T) {
	t.Parallel()
	e := startE2EOn(t, func(ds *netsim.Dataset) {
		for _, s := range creditNotes(ds.MustLookup(netsim.KnownCertValid)) {
			s.MetadataStatus = http.StatusInternalServerError
		}
	}, nil, nil)
	presp, _ := e.get(t, "/api/v1/participant/"+netsim.KnownCertValid)
	sresp, _ := e.get(t, "/api/v1/participant/"+netsim.KnownCertValid+"/services")
	p, s := maxAge(presp.Header), maxAge(sresp.Header)
	if p < 0 || s < 0 || p > s {
		t.Errorf("the lookup is fresh for %d s, its services for %d s: want the lookup no longer (Cache-Control %q, %q)", p, s, presp.Header.Get("Cache-Control"), sresp.Header.Get("Cache-Control"))
	}
}

// TestVerdictFreshnessServicesFailed: a lookup served from the cache whose verdict
// needed the services, which could not be read, is not cacheable (max-age=0) and not a
// cache hit: the next request may read them (registry.Judgement.Freshness).
func TestVerdictFreshnessServicesFailed(t *testing.T) {
	t.Parallel()
	e := startE2EOn(t, nil, nil, nil)
	p := e.ds.MustLookup(netsim.KnownCertValid)
	reg, _, err := e.srv.nets.Select("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
	defer cancel()
	if _, _, err := reg.Lookup(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	e.net.SetFault(netsim.SMPHostTarget(p.SMPHost), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
	resp, body := e.get(t, "/api/v1/participant/"+netsim.KnownCertValid)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if n := maxAge(resp.Header); n != 0 {
		t.Errorf("Cache-Control %q, want max-age=0", resp.Header.Get("Cache-Control"))
	}
	if x := resp.Header.Get("X-Cache"); x == "hit" {
		t.Errorf("X-Cache %q for a verdict whose services read failed", x)
	}
}

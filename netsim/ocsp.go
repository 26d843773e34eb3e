package netsim

import (
	"encoding/base64"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"golang.org/x/crypto/ocsp"
)

// RevokeSMPHost makes the OCSP responder answer "revoked" for the signing certificate
// of SMP host i (an index of Dataset.SMPHosts) from now on.
func (n *Network) RevokeSMPHost(i int) {
	n.revokedSMP.Store(i, time.Now().UTC().Truncate(time.Second))
}

// RevokeAccessPoint makes the OCSP responder answer "revoked" for the certificate of
// access point i (an index of Dataset.AccessPoints) from now on.
func (n *Network) RevokeAccessPoint(i int) {
	n.revoked.Store(i, time.Now().UTC().Truncate(time.Second))
}

// serveOCSP is the OCSP responder of the access point and SMP CAs (RFC 6960, over HTTP
// POST or GET): "good" for their certificates, "revoked" for those RevokeAccessPoint
// and RevokeSMPHost name, "unknown" for any other serial; answers signed by the CA
// that issued the certificate, valid for an hour. OCSPTarget faults apply.
func (n *Network) serveOCSP(w http.ResponseWriter, r *http.Request) {
	n.hits.ocsp.Add(1)
	f := n.faults.get(OCSPTarget())
	if f.Latency > 0 {
		select {
		case <-time.After(f.Latency):
		case <-r.Context().Done():
			return
		}
	}
	if f.Hang {
		select {
		case <-r.Context().Done():
		case <-n.closing:
		}
		return
	}
	if f.HTTPStatus != 0 {
		w.WriteHeader(f.HTTPStatus)
		return
	}
	var raw []byte
	switch r.Method {
	case http.MethodPost:
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err != nil {
			return
		}
		raw = b
	case http.MethodGet:
		b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.URL.Path, "/ocsp/"))
		if err != nil {
			http.Error(w, "malformed request", http.StatusBadRequest)
			return
		}
		raw = b
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	req, err := ocsp.ParseRequest(raw)
	if err != nil {
		w.Header().Set("Content-Type", "application/ocsp-response")
		_, _ = w.Write(ocsp.MalformedRequestErrorResponse)
		return
	}
	now := time.Now().UTC().Truncate(time.Second)
	tmpl := ocsp.Response{Status: ocsp.Unknown, SerialNumber: req.SerialNumber, ThisUpdate: now, NextUpdate: now.Add(time.Hour)}
	ca, caKey := n.pki.apCACert, n.pki.apCAKey
	for i := range n.ds.SMPHosts {
		if req.SerialNumber.Cmp(big.NewInt(int64(smpSerialBase+i))) != 0 {
			continue
		}
		ca, caKey, tmpl.Status = n.pki.smpCACert, n.pki.smpCAKey, ocsp.Good
		if at, ok := n.revokedSMP.Load(i); ok {
			tmpl.Status, tmpl.RevokedAt, tmpl.RevocationReason = ocsp.Revoked, at.(time.Time), ocsp.KeyCompromise
		}
	}
	for i, a := range n.ds.AccessPoints {
		if a.NonPeppolCA || req.SerialNumber.Cmp(big.NewInt(a.Serial)) != 0 {
			continue
		}
		tmpl.Status = ocsp.Good
		if at, ok := n.revoked.Load(i); ok {
			tmpl.Status, tmpl.RevokedAt, tmpl.RevocationReason = ocsp.Revoked, at.(time.Time), ocsp.KeyCompromise
		}
		break
	}
	der, err := ocsp.CreateResponse(ca, ca, tmpl, caKey)
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/ocsp-response")
	_, _ = w.Write(der)
}

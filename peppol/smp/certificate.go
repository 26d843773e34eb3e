package smp

import (
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/peppolgate/peppolgate/internal/untrusted"
)

// maxCertificateText bounds the base64 text decoded for one certificate; real ones are
// 1-3 KB, and the cap keeps a hostile document from making us decode megabytes per
// endpoint.
const maxCertificateText = 64 << 10

// DecodeCertificate decodes the text of an SMP Certificate element: base64 DER, possibly
// broken into lines with CR/LF (&#13;) or spaces, or a PEM block. It returns an error
// when the text is empty, longer than 64 KiB, not base64 or not an X.509 certificate.
func DecodeCertificate(text string) (*Certificate, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("certificate element is empty")
	}
	if len(text) > maxCertificateText {
		return nil, fmt.Errorf("certificate text is %d bytes, more than the %d allowed", len(text), maxCertificateText)
	}
	var der []byte
	if block, _ := pem.Decode([]byte(strings.TrimSpace(text))); block != nil {
		der = block.Bytes
	} else {
		compact := strings.Map(func(r rune) rune {
			switch r {
			case ' ', '\t', '\r', '\n':
				return -1
			}
			return r
		}, text)
		var err error
		der, err = base64.StdEncoding.DecodeString(compact)
		if err != nil {
			// Some publishers drop the '=' padding.
			var err2 error
			if der, err2 = base64.RawStdEncoding.DecodeString(strings.TrimRight(compact, "=")); err2 != nil {
				return nil, fmt.Errorf("certificate is not base64: %v", err)
			}
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("certificate is not a valid X.509 certificate: %v", err)
	}
	sum := sha256.Sum256(cert.Raw)
	return &Certificate{
		Subject:      untrusted.Field(distinguishedName(cert.RawSubject, cert.Subject)),
		Issuer:       untrusted.Field(distinguishedName(cert.RawIssuer, cert.Issuer)),
		SerialNumber: cert.SerialNumber.String(),
		NotBefore:    cert.NotBefore.UTC(),
		NotAfter:     cert.NotAfter.UTC(),
		SHA256:       hex.EncodeToString(sum[:]),
		Raw:          cert.Raw,
	}, nil
}

// distinguishedName renders a certificate's subject or issuer as RFC 2253 text in the
// certificate's own RDN order, as OpenSSL (-nameopt RFC2253) and Java's X500Principal
// print it: pkix.Name.String() rebuilds the name in a fixed order of its own, which
// differs from the certificate for names written C, O, OU, CN. parsed is used only
// when raw does not decode.
func distinguishedName(raw []byte, parsed pkix.Name) string {
	var seq pkix.RDNSequence
	if rest, err := asn1.Unmarshal(raw, &seq); err == nil && len(rest) == 0 {
		return seq.String()
	}
	return parsed.String()
}

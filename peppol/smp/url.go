package smp

import (
	"strings"

	"github.com/peppolgate/peppolgate/peppol"
)

// ServiceGroupURL returns the ServiceGroup URL of id at the SMP with the given base URL
// (as the SML's NAPTR record gives it: it may carry a path and may or may not end in
// '/'): base, exactly one '/', then peppol.PathEscape("iso6523-actorid-upis::<id>"),
// e.g. https://smp.example.com/iso6523-actorid-upis%3A%3A0208%3A0677424046.
// base is not checked: one with a query, fragment or user info gives a useless URL
// (Client refuses such a base before sending anything).
func ServiceGroupURL(base string, id peppol.ParticipantID) string {
	return strings.TrimRight(base, "/") + "/" + peppol.PathEscape(id.URI())
}

// ServiceMetadataURL returns the ServiceMetadata URL of id and docType at the SMP with
// the given base URL: ServiceGroupURL + "/services/" + peppol.PathEscape(docType.String()),
// so '#' becomes %23, ':' %3A, '+' %2B and '*' %2A.
func ServiceMetadataURL(base string, id peppol.ParticipantID, docType Identifier) string {
	return ServiceGroupURL(base, id) + "/services/" + peppol.PathEscape(docType.String())
}

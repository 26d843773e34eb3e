package sml

import (
	"fmt"
	"strings"
)

// ZoneFor returns the SML DNS zone of a Peppol network: "production" or "prod" give
// ZoneProduction, "test" gives ZoneTest (case and surrounding space are ignored). Any
// other name returns an error that lists the valid names.
func ZoneFor(network string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(network)) {
	case "production", "prod":
		return ZoneProduction, nil
	case "test":
		return ZoneTest, nil
	}
	return "", fmt.Errorf("sml: unknown Peppol network %q; valid names are \"production\" (or \"prod\") and \"test\"", network)
}

package server

import (
	"fmt"
	"net/http"
)

// unauthorized answers a request that lacks a valid bearer token, for endpoints that
// will need one (none does yet; interface spec §5.5): 401 with the error object and
// WWW-Authenticate pointing at the protected-resource metadata (RFC 9728 §5.1), so
// that a client can discover how to authenticate. Handlers return its error.
func (s *Server) unauthorized(w http.ResponseWriter, why string) error {
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource"`, s.baseURL))
	return apiError(CodeUnauthorized, why+"; see "+s.baseURL+"/.well-known/oauth-protected-resource for how to authenticate")
}

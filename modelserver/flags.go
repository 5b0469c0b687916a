package modelserver

import (
	"flag"

	"github.com/sqlrl/sqlrl/httpserve"
)

// DefaultServer is a Server with `sqlrl serve-model`'s defaults (no policy).
func DefaultServer() *Server {
	return &Server{Name: "sqlrl-policy", MaxTokens: 256, Slots: 32, MaxBodyBytes: DefaultMaxBodyBytes,
		RequestTimeout: DefaultRequestTimeout, MaxRequests: httpserve.DefaultMaxConcurrent}
}

// Flags declares the server's settings on fs, defaulting to s's.
func (s *Server) Flags(fs *flag.FlagSet) {
	fs.StringVar(&s.Name, "name", s.Name, "model id reported by /v1/models")
	fs.IntVar(&s.MaxTokens, "max-tokens", s.MaxTokens, "default max_tokens")
	fs.IntVar(&s.Slots, "slots", s.Slots, "sequences decoded at once, across concurrent requests")
	httpserve.MaxBodyFlag(fs, &s.MaxBodyBytes)
	fs.DurationVar(&s.RequestTimeout, "request-timeout", s.RequestTimeout, "deadline for one request (past it: 504, and its slots are freed)")
	fs.IntVar(&s.MaxRequests, "max-requests", s.MaxRequests, "requests answered at once (more: 503, retry)")
}

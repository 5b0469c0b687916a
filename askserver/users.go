package askserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/sqlrl/sqlrl/httpserve"
)

// Role is what a key's holder may do. Anyone may ask and read; an analyst
// also gives feedback and runs SQL (POST /api/run); an admin also reloads
// schemas and exports training data (/api/admin/*).
type Role string

// The roles, from least to most allowed.
const (
	RoleAnalyst Role = "analyst"
	RoleAdmin   Role = "admin"
)

// parseRole checks a config's role; "" is RoleAdmin, so that configs
// written before roles keep their powers.
func parseRole(r Role) (Role, error) {
	switch r {
	case "":
		return RoleAdmin, nil
	case RoleAnalyst, RoleAdmin:
		return r, nil
	}
	return "", fmt.Errorf("%q: want \"analyst\" (feedback, run SQL) or \"admin\" (also reload and export)", clip(string(r), 32))
}

// allows reports whether r may use a route that needs need.
func (r Role) allows(need Role) bool { return r == RoleAdmin || r == need }

// user is the holder of a request's key.
type user struct {
	name string
	role Role
}

type keyHash struct {
	user
	sum [32]byte
}

// keyHashes hashes the config's keys in name order.
func keyHashes(keys map[string]APIKey) []keyHash {
	var out []keyHash
	for _, name := range sortedKeys(keys) {
		k := keys[name]
		out = append(out, keyHash{user{name, k.Role}, sha256.Sum256([]byte(k.Key))})
	}
	return out
}

// authorize returns the holder of the request's key: 401 without a key,
// 403 for a key not configured or one whose role is not need's.
func (s *Server) authorize(r *http.Request, need Role) (user, error) {
	key := r.Header.Get("X-API-Key")
	if a := r.Header.Get("Authorization"); key == "" && a != "" {
		key, _ = strings.CutPrefix(a, "Bearer ")
	}
	if key == "" {
		return user{}, httpserve.Errorf(http.StatusUnauthorized, "this route needs an API key: send it as \"Authorization: Bearer KEY\" or \"X-API-Key: KEY\"")
	}
	sum := sha256.Sum256([]byte(key))
	var u user
	// Every key is compared, in constant time, whichever matches.
	for _, k := range s.keyHashes {
		if subtle.ConstantTimeCompare(sum[:], k.sum[:]) == 1 {
			u = k.user
		}
	}
	if u.name == "" {
		return user{}, httpserve.Errorf(http.StatusForbidden, "API key not recognised")
	}
	if !u.role.allows(need) {
		return user{}, httpserve.Errorf(http.StatusForbidden, "this route needs an %s key", need)
	}
	return u, nil
}

// me: GET /api/me: the name and role of the request's key, so that the
// page shows what its key may do.
func (s *Server) me(_ context.Context, r *http.Request) (any, error) {
	u, err := s.authorize(r, RoleAnalyst)
	if err != nil {
		return nil, err
	}
	return struct {
		Name string `json:"name"`
		Role Role   `json:"role"`
	}{u.name, u.role}, nil
}

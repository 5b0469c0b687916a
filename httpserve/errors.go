package httpserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Error is a failure the client is told about: an HTTP status and a
// message written for the client. Any other error a handler returns is a
// 500 whose message says only "internal error" (the log has the rest), so
// that paths, queries and other tenants' data never reach a client by
// accident.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error with status and a formatted message.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

// StatusOf returns the status err is answered with: an *Error's, 413 for
// a body over the cap, 500 otherwise.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusInternalServerError
}

// Prefix puts prefix before err's message, keeping its status ("labels[3]:
// ...").
func Prefix(prefix string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Status: e.Status, Msg: prefix + e.Msg}
	}
	return fmt.Errorf("%s%w", prefix, err)
}

// DecodeJSON reads exactly one JSON value from a request body into v: a
// body over the cap is a 413, anything malformed (or a second value) a
// 400. Fields v does not have are ignored, as OpenAI's and OpenRLHF's
// clients send more than a server reads.
func DecodeJSON(body io.Reader, v any) error { return decodeJSON(body, v, false) }

// DecodeStrictJSON is DecodeJSON for an API whose every field is the
// server's own: a field v does not have is a 400 naming it, so that a
// misspelt setting is not silently ignored.
func DecodeStrictJSON(body io.Reader, v any) error { return decodeJSON(body, v, true) }

func decodeJSON(body io.Reader, v any, strict bool) error {
	dec := json.NewDecoder(body)
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return Errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", mbe.Limit)
		}
		return Errorf(http.StatusBadRequest, "malformed JSON: %v", err)
	}
	if dec.More() {
		return Errorf(http.StatusBadRequest, "malformed JSON: more than one value in the body")
	}
	// Read to EOF: net/http watches the connection for a client that goes
	// away (canceling the request's context, and so its work) only once
	// the body has been read to the end.
	if _, err := io.Copy(io.Discard, body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return Errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", mbe.Limit)
		}
		return Errorf(http.StatusBadRequest, "reading body: %v", err)
	}
	return nil
}

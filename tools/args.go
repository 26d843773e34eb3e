package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/peppolgate/peppolgate/registry"
)

// decodeArgs decodes a tool's JSON arguments object into dst, a pointer to a struct
// whose fields are all the tool's arguments. Absent or null arguments decode as an
// empty object. It returns a *registry.Error with CodeInvalidRequest naming the
// argument that is unknown or of the wrong type.
func decodeArgs(tool string, raw json.RawMessage, dst any, names string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("trailing data")
		}
	}
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	msg := fmt.Sprintf("the arguments of %s must be a JSON object with %s", tool, names)
	switch {
	case errors.As(err, &te) && te.Field != "":
		msg = fmt.Sprintf("argument %s of %s must be a JSON %s, not a JSON %s", te.Field, tool, jsonKind(te.Type), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		msg = fmt.Sprintf("unknown argument %s; %s takes %s", strings.TrimPrefix(err.Error(), "json: unknown field "), tool, names)
	}
	return &registry.Error{Code: registry.CodeInvalidRequest, Message: msg}
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	default:
		return "object"
	}
}

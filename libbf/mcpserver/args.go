package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/reply"
)

// args are the raw arguments of the tools whose handlers decode them one by one (memory, ask).
type args map[string]json.RawMessage

func decodeArgs(req mcp.CallToolRequest) (args, error) {
	raw, ok := req.GetRawArguments().(json.RawMessage)
	if !ok {
		b, err := json.Marshal(req.GetRawArguments())
		if err != nil {
			return nil, err
		}
		raw = b
	}
	a := args{}
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return a, nil
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return a, nil
}

func (a args) str(name string) (string, error) {
	v, ok := a[name]
	if !ok {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", &reply.InputError{Argument: name, Err: errors.New("expected a string")}
	}
	return s, nil
}

// integer reads an integral JSON number; 5.0 counts as 5.
func (a args) integer(name string, def int64) (int64, error) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	bad := &reply.InputError{Argument: name, Err: errors.New("expected an integer")}
	if n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64); err == nil {
		return n, nil
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || math.Abs(f) > float64(reply.MaxOffset) {
		return 0, bad
	}
	return int64(f), nil
}

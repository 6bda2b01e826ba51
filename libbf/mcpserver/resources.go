package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/scan"
)

// Notes and records are resources too, for hosts that attach them: bf://NAME/PATH reads
// exactly as the read tool (and bf read) does with that ref, and resources/list pages the
// notes of the selected brains.
const (
	resourceTemplate = "bf://{brain}/{path}"
	resourceMIME     = "application/json"
	// resourcePage is how many notes one resources/list page holds.
	resourcePage = 100
	// codeResourceNotFound is MCP's error code for an unknown resource.
	codeResourceNotFound = -32002
)

// invalidParams marks a request whose parameters are wrong.
type invalidParams struct{ msg string }

func (e *invalidParams) Error() string { return e.msg }

// notFound marks a resource that does not exist.
type notFound struct{ err error }

func (e *notFound) Error() string { return e.err.Error() }
func (e *notFound) Unwrap() error { return e.err }

func (s *Server) templateResult() mcp.ListResourceTemplatesResult {
	return mcp.ListResourceTemplatesResult{ResourceTemplates: []mcp.ResourceTemplate{
		mcp.NewResourceTemplate(resourceTemplate, "note or record",
			mcp.WithTemplateDescription("A note (bf://NAME/projects/site.md), a section (…#slug) or a record (bf://NAME/SOURCE:ID) of a selected brain, read as the read tool reads that ref. A large text comes back in pages: while the reply holds next_offset, read the same address with ?offset=NEXT_OFFSET (bf://NAME/projects/site.md?offset=3903)."),
			mcp.WithTemplateMIMEType(resourceMIME)),
	}}
}

// resource answers resources/list, resources/templates/list and resources/read.
func (s *Server) resource(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case string(mcp.MethodResourcesTemplatesList):
		return s.templateResult(), nil
	case string(mcp.MethodResourcesList):
		var p struct {
			Cursor string `json:"cursor"`
		}
		if len(params) > 0 && json.Unmarshal(params, &p) != nil {
			return nil, &invalidParams{"invalid input: params: must be an object"}
		}
		return s.listResources(ctx, p.Cursor)
	default:
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) != nil || p.URI == "" {
			return nil, &invalidParams{"invalid input: uri: required"}
		}
		text, err := s.readResource(ctx, p.URI)
		if err != nil {
			return nil, err
		}
		return mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
			mcp.TextResourceContents{URI: p.URI, MIMEType: resourceMIME, Text: text},
		}}, nil
	}
}

// listResources pages the notes of the selected brains, brain by brain in path order; the
// cursor is the position of the next note.
func (s *Server) listResources(ctx context.Context, cursor string) (*mcp.ListResourcesResult, error) {
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return nil, &invalidParams{"invalid input: cursor: use the nextCursor of a previous page"}
		}
		start = n
	}
	sel, err := s.selectBrains()
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourcesResult{Resources: []mcp.Resource{}}
	i := 0
	for _, b := range sel.Brains {
		tree, err := scan.Brain(b.Root)
		if err != nil {
			return nil, fmt.Errorf("listing the notes of %s: %w", b.Name, err)
		}
		held, err := unconfirmed(ctx, b)
		if err != nil {
			return nil, err
		}
		for _, n := range tree.Notes {
			if held[n.Path] {
				continue // what no person confirmed is never attached as context
			}
			switch {
			case i < start:
			case len(res.Resources) == resourcePage:
				res.NextCursor = mcp.Cursor(strconv.Itoa(i))
				return res, nil
			default:
				res.Resources = append(res.Resources, mcp.NewResource(noteURI(b.Name, n.Path), b.Name+"/"+n.Path,
					mcp.WithMIMEType(resourceMIME)))
			}
			i++
		}
	}
	return res, nil
}

// noteURI is the resource address of a note: bf://NAME/PATH, with # and ? escaped.
func noteURI(brainName, path string) string {
	return "bf://" + brainName + "/" + strings.NewReplacer("%", "%25", "#", "%23", "?", "%3F").Replace(path)
}

// readResource reads a bf:// address as bf read would and returns the reply's JSON. An
// offset=N parameter of the address continues a large text at a previous reply's
// next_offset, as the read tool's offset argument does.
func (s *Server) readResource(ctx context.Context, uri string) (string, error) {
	if !strings.HasPrefix(uri, "bf://") {
		return "", &invalidParams{"invalid input: uri: use a bf://NAME/PATH address"}
	}
	address, offset, err := splitOffset(uri)
	if err != nil {
		return "", &invalidParams{s.message(err, nil)}
	}
	req := read.Request{Ref: address, Offset: offset}
	if err := read.Check(req); err != nil {
		return "", &invalidParams{s.message(err, nil)}
	}
	sel, err := s.selectBrains()
	if err != nil {
		return "", err
	}
	req.Brains, req.Problems = sel.Brains, sel.Problems
	if err := refuseUnconfirmed(ctx, sel.Brains, address); err != nil {
		return "", err
	}
	res, err := read.Run(ctx, req)
	if err != nil {
		var nf *reply.NotFoundError
		if errors.As(err, &nf) {
			return "", &notFound{err}
		}
		if reply.IsInput(err) {
			return "", &invalidParams{s.message(err, nil)}
		}
		return "", err
	}
	b, err := reply.Encode(res)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// splitOffset takes the offset=N parameter off a resource address: resources/read has
// only a uri, so a text in pages continues at bf://NAME/PATH?offset=N (also
// ?rel=NAME&offset=N, and before any #section). The address without it is what bf read
// reads; without the parameter the offset is 0.
func splitOffset(uri string) (string, int64, error) {
	rest, fragment, hasFragment := strings.Cut(uri, "#")
	base, query, hasQuery := strings.Cut(rest, "?")
	if !hasQuery {
		return uri, 0, nil
	}
	var kept []string
	var offset int64
	found := false
	for _, param := range strings.Split(query, "&") {
		value, ok := strings.CutPrefix(param, "offset=")
		if !ok {
			kept = append(kept, param)
			continue
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if found || err != nil || n < 0 || value != strconv.FormatInt(n, 10) {
			return "", 0, &reply.InputError{Argument: "offset", Err: reply.ErrOffset}
		}
		offset, found = n, true
	}
	if len(kept) > 0 {
		base += "?" + strings.Join(kept, "&")
	}
	if hasFragment {
		base += "#" + fragment
	}
	return base, offset, nil
}

// readTemplate serves resources/read for in-process clients of the SDK server.
func (s *Server) readTemplate(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	text, err := s.readResource(ctx, req.Params.URI)
	if err != nil {
		return nil, errors.New(s.message(err, nil))
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: resourceMIME, Text: text}}, nil
}

// unconfirmed is the set of a brain's items no one has confirmed, by ref.
func unconfirmed(ctx context.Context, b *brain.Brain) (map[string]bool, error) {
	c, err := cache.Open(ctx, b)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return cache.Unconfirmed(ctx, c.DB())
}

// refuseUnconfirmed answers an address of a note or record no one confirmed as a resource
// that does not exist: resources obey the default trust floor, so an agent's unreviewed
// memory or a hand-written record is never attached as context. The read tool still
// reads it on request, as bf read does.
func refuseUnconfirmed(ctx context.Context, brains []*brain.Brain, uri string) error {
	a, err := ref.ParseAddress(uri)
	if err != nil {
		return nil // read.Run reports it
	}
	for _, b := range brains {
		if b.Name != a.Brain {
			continue
		}
		held, err := unconfirmed(ctx, b)
		if err != nil {
			return err
		}
		if held[a.Path] {
			return &notFound{fmt.Errorf("%s is unreviewed: no person has confirmed it, so it is not served as a resource (the read tool reads it; a person accepts it with bf review --accept %s)", uri, a.Path)}
		}
	}
	return nil
}

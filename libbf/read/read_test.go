package read

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/google/go-cmp/cmp"
)

func TestExactReads(t *testing.T) {
	b := atlasBrain(t)
	atlasSum, stackSum := sum(b, "projects/atlas.md"), sum(b, "concepts/stack.md")
	r1 := b.Record("brief", "r1", `"title":"Needs Atlas","text":"A brief that depends on Atlas.","time":"2026-09-27T08:00:00Z",`+
		`"url":"https://example.test/r1","links":["https://example.test/x"],"attributes":{"observed":"2026-09-27T09:00:00.000000Z"},`+
		`"fields":{"depends-on":["repo:github.com/team/atlas"]}`)
	r1Sum := sum(b, r1)
	odd := b.Record("brief", "a#1?b", `"title":"Odd id","text":"Hash and question mark."`)
	oddSum := sum(b, odd)

	stackReply := `{"backlinks":[{"items":[{"date":"2026-09-20","excerpt":"Atlas uses SQLite, see the stack.","fields":{"phase":"build"},"kind":"note","ref":"projects/atlas.md","status":"stable","title":"Atlas","type":"project"}],"relation":"depends-on","total":1}],` +
		`"brain":"work","claims":[{"date":"2026-09-25","origin":"concepts/stack.md","relation":"cites","subject":"bf://work/concepts/stack.md","target":"projects/atlas.md","target_ref":"projects/atlas.md","target_title":"Atlas"}],` +
		`"modified":"` + modified + `",` + notice + `,"ref":"concepts/stack.md","sha256":"` + stackSum + `","text":` + jsonOf(t, stackNote) + `}`
	budget := `{"brain":"work","date":"2026-09-20","modified":"` + modified + `",` + notice + `,"ref":"projects/atlas.md#budget","sha256":"` + atlasSum + `",` +
		`"status":"stable","text":"## Budget {#budget}\n\nThe budget is 4200 credits.\n\n### Detail\n\nSmall print.\n\n","title":"Atlas","type":"project"}`
	recordReply := `{"backlinks":[],"brain":"work","claims":[{"origin":"brief:r1","relation":"depends-on","subject":"bf://work/brief:r1","target":"repo:github.com/team/atlas","target_ref":"projects/atlas.md","target_title":"Atlas","time":"2026-09-27T10:00:00+02:00"}],` +
		`"collection":{"freshness":"never","mode":"window","state":"active"},"modified":"` + modified + `",` + notice + `,"path":"` + r1 + `",` +
		`"record":{"attributes":{"observed":"2026-09-27T09:00:00.000000Z"},"fields":{"depends-on":["repo:github.com/team/atlas"]},"id":"r1","links":["https://example.test/x"],"text":"A brief that depends on Atlas.","time":"2026-09-27T10:00:00+02:00","title":"Needs Atlas","url":"https://example.test/r1"},` +
		`"ref":"brief:r1","sha256":"` + r1Sum + `"}`
	oddReply := `{"backlinks":[],"brain":"work","collection":{"freshness":"never","mode":"window","state":"active"},"modified":"` + modified + `",` + notice +
		`,"path":"` + odd + `","record":{"id":"a#1?b","text":"Hash and question mark.","title":"Odd id"},"ref":"brief:a#1?b","sha256":"` + oddSum + `"%s}`
	ownerless := `{"backlinks":[{"items":[{"date":"2026-09-10","excerpt":"See the repo and the org.","kind":"note","ref":"concepts/plain.md","status":"stable","title":"Plain","type":"concept"}],"relation":"links","total":1}],` +
		notice + `,"page":"repo:github.com/team"}`

	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"note", Request{Ref: "concepts/stack.md"}, stackReply},
		{"section", Request{Ref: "projects/atlas.md#budget"}, budget},
		{"entity section", Request{Ref: "bf://work/things/atlas#budget"},
			strings.Replace(budget, `"type":"project"`, `"type":"project","uri":"bf://work/projects/atlas.md#budget"`, 1)},
		{"record", Request{Ref: "brief:r1"}, recordReply},
		{"record id with # and ?", Request{Ref: "brief:a#1?b"}, fmt.Sprintf(oddReply, "")},
		{"record address", Request{Ref: "bf://work/brief:a%231%3Fb"}, fmt.Sprintf(oddReply, `,"uri":"bf://work/brief:a%231%3Fb"`)},
		{"ownerless identity", Request{Ref: "repo:github.com/team"}, ownerless},
		{"relation page", Request{Ref: "projects/atlas.md", Rel: "related-to"},
			`{"items":[{"excerpt":"A brief that depends on Atlas.","kind":"record","observed":"2026-09-27T11:00:00+02:00","ref":"brief:r1","relation":"depends-on","source":"brief","time":"2026-09-27T10:00:00+02:00","title":"Needs Atlas","url":"https://example.test/r1"},` +
				`{"date":"2026-09-26","excerpt":"Deep work relates to Atlas.","fields":{"phase":"study"},"kind":"note","ref":"concepts/deep.md","status":"stable","title":"Deep","type":"concept"}],` +
				notice + `,"page":"relation","ref":"projects/atlas.md","relation":"related-to","total":2}`},
		{"identity relation page", Request{Ref: "repo:github.com/team/atlas", Rel: "cites"},
			`{"items":[{"date":"2026-09-25","excerpt":"The stack serves Atlas.","kind":"note","ref":"concepts/stack.md","status":"stable","title":"Stack","type":"concept"}],` +
				notice + `,"page":"relation","ref":"repo:github.com/team/atlas","relation":"cites","total":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustRun(t, tt.req, b); got != tt.want {
				t.Errorf("read %q:\n got %s\nwant %s", tt.req.Ref, got, tt.want)
			}
		})
	}
}

func TestWholeProjectRead(t *testing.T) {
	b := atlasBrain(t)
	var got map[string]any
	r, err := run(t, Request{Ref: "projects/atlas.md"}, b)
	if err != nil {
		t.Fatal(err)
	}
	n := r.(*NoteReply)
	got = map[string]any{"ref": n.Ref, "tasks": *n.Tasks, "next": n.Next, "groups": len(*n.Backlinks), "claims": len(n.Claims), "text": n.Text}
	want := map[string]any{"ref": "projects/atlas.md", "tasks": reply.Tasks{Open: 1}, "next": "Ship it", "groups": 4, "claims": 2, "text": atlasNote}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("project read (-want +got):\n%s", diff)
	}
	// The alias and the entity read as the owner.
	for _, ref := range []string{"repo:github.com/team/atlas", "bf://work/things/atlas", "bf://work/projects/atlas.md#"} {
		r, err := run(t, Request{Ref: ref}, b)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if n, ok := r.(*NoteReply); !ok || n.Ref != "projects/atlas.md" || n.Text != atlasNote {
			t.Errorf("%s read %#v", ref, r)
		}
	}
}

func TestIdentityAmbiguous(t *testing.T) {
	b := newBrain(t, "work", map[string]string{
		"concepts/a.md": "---\naliases: [person:dana]\n---\nA.\n",
		"concepts/b.md": "---\naliases: [person:dana]\n---\nB.\n",
	})
	_, err := run(t, Request{Ref: "person:dana"}, b)
	if err == nil || err.Error() != "ambiguous identity; read an exact ref: concepts/a.md or concepts/b.md" || reply.IsInput(err) {
		t.Errorf("ambiguous alias: %v", err)
	}
}

func TestInvalid(t *testing.T) {
	b := atlasBrain(t)
	tests := []struct {
		req  Request
		want string
	}{
		{Request{Ref: "projects/atlas.md#"}, "invalid input: ref: a ref ending in # names no section; read the whole note or name a section"},
		{Request{Ref: "tasks#x"}, "invalid input: ref: pages have no sections; read the page without #section"},
		{Request{Ref: "projects#x"}, "invalid input: ref: pages have no sections; read the page without #section"},
		{Request{Ref: "2026-13"}, "invalid input: ref: invalid period: 2026-13"},
		{Request{Ref: "bf://work/2026-13"}, "invalid input: ref: invalid period: 2026-13"},
		{Request{Ref: "bf://work/brief:r1#x"}, "invalid input: ref: " + errRecordFrag.Error()},
		{Request{Ref: "bf://work/projects/a b.md"}, "invalid input: ref: " + strings.SplitN(errAddr(), ": ", 2)[1]},
		{Request{Ref: strings.Repeat("a", 8193)}, "invalid input: ref: expected a ref of at most 8192 characters of UTF-8 text"},
		{Request{Ref: "projects", Rel: "links"}, "invalid input: ref: " + errRelRef.Error()},
		{Request{Ref: "projects/atlas.md#budget", Rel: "links"}, "invalid input: ref: " + errRelRef.Error()},
		{Request{Ref: "projects/atlas.md", Rel: "owner"}, "invalid input: rel: unknown relation; use one of cites, depends-on, links, related-to"},
		{Request{Ref: "concepts/stack.md", Offset: 3}, "invalid input: offset: this exact reply is not paged; read it without an offset"},
		{Request{Ref: "concepts/stack.md", Offset: -1}, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
	}
	for _, tt := range tests {
		_, err := run(t, tt.req, b)
		if err == nil || err.Error() != tt.want || !reply.IsInput(err) {
			t.Errorf("read %.40q rel %q: %v\nwant %s", tt.req.Ref, tt.req.Rel, err, tt.want)
		}
	}
	notFound := []struct{ ref, want string }{
		{"projects/atlsa.md", msgNotFound + "; did you mean projects/atlas.md or projects?"},
		{"repo:github.com/none", msgNotFound},
		{"projects/atlas.md#nowhere", msgSection},
		{"brief:none", msgNotFound},
	}
	for _, tt := range notFound {
		_, err := run(t, Request{Ref: tt.ref}, b)
		var nf *reply.NotFoundError
		if !errors.As(err, &nf) || err.Error() != tt.want {
			t.Errorf("read %q: %v\nwant %s", tt.ref, err, tt.want)
		}
	}
}

// errAddr is the text of an invalid address error.
func errAddr() string {
	_, err := parse("bf://work/projects/a b.md")
	return "x: " + err.Error()
}

func TestSeveralBrains(t *testing.T) {
	work := atlasBrain(t)
	home := newBrain(t, "home", map[string]string{
		"concepts/stack.md": "---\nupdated: 2026-09-02\n---\nHome stack, about [Atlas](bf://work/projects/atlas.md).\n",
	})
	_, err := run(t, Request{Ref: "concepts/stack.md"}, work, home)
	want := "the reference exists in several selected brains; read bf://home/concepts/stack.md or bf://work/concepts/stack.md"
	if err == nil || err.Error() != want {
		t.Errorf("plain ref in two brains: %v", err)
	}
	got := mustRun(t, Request{Ref: "bf://home/concepts/stack.md"}, work, home)
	if !strings.Contains(got, `"brain":"home"`) || !strings.Contains(got, `"uri":"bf://home/concepts/stack.md"`) ||
		!strings.Contains(got, `"backlinks":[]`) {
		t.Errorf("address read: %s", got)
	}
	// Backlinks of a bf:// read come from every selected brain.
	got = mustRun(t, Request{Ref: "bf://work/projects/atlas.md"}, work, home)
	if !strings.Contains(got, `"brain":"home","date":"2026-09-02"`) || !strings.Contains(got, `"uri":"bf://work/projects/atlas.md"`) {
		t.Errorf("address read: %s", got)
	}
	// Backlinks come from every brain, with their brain and uri.
	r, err := run(t, Request{Ref: "projects/atlas.md", Rel: "links"}, work, home)
	if err != nil {
		t.Fatal(err)
	}
	rel := r.(*RelationReply)
	wantItems := `[{"brain":"work","date":"2026-09-10","excerpt":"See the repo and the org.","kind":"note","ref":"concepts/plain.md","status":"stable","title":"Plain","type":"concept","uri":"bf://work/concepts/plain.md"},` +
		`{"brain":"home","date":"2026-09-02","excerpt":"Home stack, about Atlas.","kind":"note","ref":"concepts/stack.md","status":"stable","title":"stack","type":"concept","uri":"bf://home/concepts/stack.md"}]`
	if got := jsonOf(t, rel.Items); got != wantItems || rel.Total != 2 {
		t.Errorf("links across brains (total %d):\n got %s\nwant %s", rel.Total, got, wantItems)
	}

	// While a brain is unavailable, a ref the others lack is incomplete, and one they
	// hold is read with the problem.
	missing := []brain.Problem{{Brain: "away", Error: "brain folder is missing"}}
	_, err = run(t, Request{Ref: "concepts/none.md", Problems: missing}, work)
	if err == nil || err.Error() != msgIncomplete {
		t.Errorf("missing brain: %v", err)
	}
	got = mustRun(t, Request{Ref: "concepts/plain.md", Problems: missing}, work)
	if !strings.Contains(got, `"problems":[{"brain":"away","error":"brain folder is missing"}]`) ||
		!strings.Contains(got, `"uri":"bf://work/concepts/plain.md"`) {
		t.Errorf("read with a missing brain: %s", got)
	}
	_, err = run(t, Request{Ref: "bf://nope/concepts/plain.md"}, work)
	if err == nil || err.Error() != "no selected brain is named nope; select it with --brain" {
		t.Errorf("unselected brain: %v", err)
	}
}

func TestLargeRead(t *testing.T) {
	var body strings.Builder
	body.WriteString("---\nupdated: 2026-09-01\n---\n# Big\n\nIntro é.\n\n")
	for s := 0; s < 6; s++ {
		fmt.Fprintf(&body, "## Part %d\n\n", s)
		for i := 0; i < 700; i++ {
			fmt.Fprintf(&body, "Line %d of part %d — ünïcödé text to fill the page.\n", i, s)
		}
		body.WriteString("\n")
	}
	text := body.String()
	if len(text) < 100<<10 {
		t.Fatalf("note of %d bytes", len(text))
	}
	b := newBrain(t, "work", map[string]string{"concepts/big.md": text})
	sum := sum(b, "concepts/big.md")

	var pieces []string
	offset := int64(0)
	for page := 0; ; page++ {
		r, err := run(t, Request{Ref: "concepts/big.md", Offset: offset}, b)
		if err != nil {
			t.Fatal(err)
		}
		out := jsonOf(t, r)
		if len(out) > reply.Budget+1024 {
			t.Errorf("page %d has %d bytes", page, len(out))
		}
		var slice, gotSum string
		var next *int64
		var total int
		switch p := r.(type) {
		case *NoteReply:
			if page != 0 {
				t.Fatalf("page %d is a first page", page)
			}
			wantOutline := []Heading{}
			for s := 0; s < 6; s++ {
				part := text[strings.Index(text, fmt.Sprintf("## Part %d", s)):]
				if s < 5 {
					part = part[:strings.Index(part, fmt.Sprintf("## Part %d", s+1))]
				}
				wantOutline = append(wantOutline, Heading{Characters: utf8.RuneCountInString(part), Ref: fmt.Sprintf("concepts/big.md#part-%d", s), Title: fmt.Sprintf("Part %d", s)})
			}
			if diff := cmp.Diff(wantOutline, p.Outline); diff != "" {
				t.Errorf("outline (-want +got):\n%s", diff)
			}
			if len(p.Text) > opening || p.Offset == nil || *p.Offset != 0 || p.Backlinks == nil {
				t.Errorf("first page: %d bytes of text, offset %v", len(p.Text), p.Offset)
			}
			slice, gotSum, next, total = p.Text, p.SHA256, p.NextOffset, *p.TotalCharacters
		case *textPage:
			if p.Offset != offset || p.Brain != "work" || p.Ref != "concepts/big.md" || p.Modified != modified {
				t.Errorf("page %d: %+v", page, p)
			}
			slice, gotSum, next, total = p.Text, p.SHA256, p.NextOffset, p.TotalCharacters
		default:
			t.Fatalf("page %d: %T", page, r)
		}
		if gotSum != sum || total != utf8.RuneCountInString(text) {
			t.Errorf("page %d: sha256 %s, total %d", page, gotSum, total)
		}
		if next != nil && !strings.HasSuffix(slice, "\n") {
			t.Errorf("page %d does not end at a line break", page)
		}
		pieces = append(pieces, slice)
		if next == nil {
			break
		}
		if *next <= offset {
			t.Fatalf("next offset %d after %d", *next, offset)
		}
		offset = *next
	}
	if strings.Join(pieces, "") != text || len(pieces) < 4 {
		t.Errorf("%d pages do not concatenate to the note", len(pieces))
	}
	_, err := run(t, Request{Ref: "concepts/big.md", Offset: int64(utf8.RuneCountInString(text))}, b)
	if err == nil || err.Error() != "invalid input: offset: "+errBeyond.Error() {
		t.Errorf("offset beyond: %v", err)
	}

	// A section without subsections holds as much as fits on its first page.
	r, err := run(t, Request{Ref: "concepts/big.md#part-2"}, b)
	if err != nil {
		t.Fatal(err)
	}
	p := r.(*NoteReply)
	if p.Outline != nil || len(p.Text) <= opening || p.NextOffset == nil || p.SHA256 != sum || p.Title != "Big" {
		t.Errorf("section page: %d bytes, outline %v, next %v", len(p.Text), p.Outline, p.NextOffset)
	}
}

func TestRoute(t *testing.T) {
	tests := []struct {
		ref  string
		kind routeKind
		path string
		key  string
	}{
		{"", routePage, "", ""},
		{"projects/", routePage, "", ""},
		{"actions/2026-09-27_launch", routePage, "actions/2026-09-27_launch", "actions/2026-09-27_launch"},
		{"projects/sub/", routePath, "projects/sub", "projects/sub"},
		{"projects/a%20b.md#x", routePath, "projects/a b.md", "projects/a b.md"},
		{"mail:a#b", routeIdentity, "mail:a#b", "mail:a#b"},
		{"bf://work/people/dana#contact", routeAddress, "people/dana", "bf://work/people/dana"},
		{"people/dana", routeUnknown, "people/dana", "people/dana"},
	}
	for _, tt := range tests {
		rt, err := parse(tt.ref)
		if err != nil {
			t.Errorf("%q: %v", tt.ref, err)
			continue
		}
		if rt.kind != tt.kind || rt.path != tt.path || rt.key != tt.key {
			t.Errorf("%q: kind %d path %q key %q", tt.ref, rt.kind, rt.path, rt.key)
		}
	}
}

func TestLargeRecord(t *testing.T) {
	b := newBrain(t, "work", nil)
	long := strings.Repeat("Evidence line with détails.\n", 3000)
	p := b.Record("brief", "big", fmt.Sprintf(`"title":"Big","text":%s,"time":"2026-09-27T08:00:00Z"`, jsonOf(t, long)))
	sum := sum(b, p)
	r, err := run(t, Request{Ref: "brief:big"}, b)
	if err != nil {
		t.Fatal(err)
	}
	first := r.(*RecordReply)
	var slice string
	if err := jsonUnmarshal(first.Record["text"], &slice); err != nil {
		t.Fatal(err)
	}
	if first.NextOffset == nil || string(first.Record["title"]) != `"Big"` || string(first.Record["time"]) != `"2026-09-27T10:00:00+02:00"` ||
		first.SHA256 != sum || first.Collection == nil || first.Backlinks == nil {
		t.Fatalf("first record page: %s", jsonOf(t, first))
	}
	pieces := []string{slice}
	for next := first.NextOffset; next != nil; {
		r, err := run(t, Request{Ref: "brief:big", Offset: *next}, b)
		if err != nil {
			t.Fatal(err)
		}
		later := r.(*recordTextPage)
		if later.SHA256 != sum || later.TotalCharacters != utf8.RuneCountInString(long) {
			t.Errorf("later page: %s", jsonOf(t, later))
		}
		pieces = append(pieces, later.Record.Text)
		next = later.NextOffset
	}
	if strings.Join(pieces, "") != long {
		t.Errorf("%d record pages do not concatenate to the text", len(pieces))
	}
}

package read

import (
	"context"

	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/pages"
)

// readPage delegates a computed page to package pages.
func readPage(ctx context.Context, req Request, rt *route) (any, error) {
	return pages.Read(ctx, pages.Request{
		Path:     rt.page.Path,
		Page:     rt.page,
		Brain:    rt.brain,
		Brains:   req.Brains,
		Problems: req.Problems,
		Offset:   req.Offset,
		Now:      req.Now,
		Location: req.Location,
	})
}

// reminders adds the tasks, next open task and review signals of a note that gets them, as
// pages computes them for listings, with newer evidence from every brain that answered.
func (r *reader) reminders(ctx context.Context, p graph.Part, noteRef string, out *NoteReply) error {
	ev := pages.Evidence{Missing: r.set.Missing, Local: r.set.Local}
	for _, q := range r.set.Parts {
		ev.Brains = append(ev.Brains, pages.Snapshot{Name: q.Name(), DB: q.DB})
	}
	sig, err := pages.Review(ctx, ev, p.Name(), noteRef, r.req.Now, r.req.Location)
	if err != nil || sig == nil {
		return err
	}
	out.Tasks, out.Next = sig.Tasks, sig.Next
	out.Review, out.ReviewDue, out.ReviewReasons, out.ReviewSource = sig.Review, sig.ReviewDue, sig.ReviewReasons, sig.ReviewSource
	out.NewLinks, out.Newer = sig.NewLinks, sig.Newer
	return nil
}

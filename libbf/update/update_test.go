package update

import (
	"errors"
	"testing"

	"github.com/bfgo/bf/libbf/assist"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/queue"
)

func TestSucceeded(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  assist.Report
		want bool
	}{
		{"nothing to do", assist.Report{}, true},
		{"jobs completed and answered", assist.Report{Ran: []assist.Result{{State: queue.Completed}, {State: queue.Answered}}}, true},
		{"a step failed", assist.Report{Errors: []string{"chat: cannot read"}}, false},
		{"a job failed", assist.Report{Ran: []assist.Result{{State: queue.Completed}, {State: queue.Failed}}}, false},
		{"a job is uncertain", assist.Report{Ran: []assist.Result{{State: queue.Uncertain}}}, false},
	} {
		if got := succeeded(&tt.rep); got != tt.want {
			t.Errorf("%s: succeeded = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFailed(t *testing.T) {
	for _, tt := range []struct {
		name string
		res  Result
		want bool
	}{
		{"all ran", Result{Reply: &collect.UpdateReply{OK: true}}, false},
		{"a program failed", Result{Reply: &collect.UpdateReply{OK: false}}, true},
		{"the embeddings failed", Result{Reply: &collect.UpdateReply{OK: true}, EmbedErr: errors.New("provider down")}, true},
	} {
		if got := tt.res.Failed(); got != tt.want {
			t.Errorf("%s: Failed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

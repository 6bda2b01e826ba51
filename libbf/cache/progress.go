package cache

import "context"

// progressKey carries a progress report in a context.
type progressKey struct{}

// WithProgress asks every build or refresh done under ctx (bf build, or the refresh a first
// search does) to report its files as they are indexed.
func WithProgress(ctx context.Context, report func(done, total int)) context.Context {
	if report == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, report)
}

func progressOf(ctx context.Context) func(done, total int) {
	report, _ := ctx.Value(progressKey{}).(func(done, total int))
	return report
}

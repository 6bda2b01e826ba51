package history

import (
	"maps"
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
)

// Coverage describes source from its history entry e at now, for a brain whose bf.yaml
// declares sensor s for it (nil: the source is historical). It fills source, state,
// freshness, mode, failed, last_collected (the last fresh success) and window (the covered
// interval, for window sensors and historical sources: a snapshot has no interval to
// resume). Instants are canonical UTC: callers present them with Coverage.Present, and
// set brain, records, latest and page themselves.
func Coverage(source string, s *config.Sensor, e Entry, now time.Time) reply.Coverage {
	p := SensorProgram(s)
	c := reply.Coverage{
		Source:    source,
		State:     p.State(),
		Freshness: p.Freshness(e, now),
		// A disabled or vanished sensor stops reporting its last failure: nothing will retry it.
		Failed:        e.Failed() && p.State() == active,
		LastCollected: instant(e.Success),
	}
	if s != nil {
		c.Mode = s.Mode
	}
	if !e.End.IsZero() && (s == nil || s.Mode != config.ModeSnapshot) {
		c.Window = &reply.Window{Since: instant(e.Start), Until: instant(e.End)}
	}
	return c
}

// Program kinds, as attention entries name them.
const (
	KindSensor    = "sensor"
	KindRoutine   = "routine"
	kindAssistant = "assistant"
)

// Need is one program needing attention.
type Need struct {
	Kind string // KindSensor, KindRoutine or kindAssistant
	Name string
	Flag
}

// Attention lists the programs of cfg that need attention at now, given the brain's history
// h: sensors, then routines, then assistants, each by name.
//
// Assistants keep their runs in the queue, not in this history: the messaging block of bf
// status names those with failed or uncertain jobs.
func Attention(cfg *config.Config, h *History, now time.Time) []Need {
	var out []Need
	if cfg == nil {
		return out
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Sensors)) {
		if f, ok := SensorProgram(cfg.Sensors[name]).Attention(h.Sensor(name), now); ok {
			out = append(out, Need{Kind: KindSensor, Name: name, Flag: f})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Routines)) {
		if f, ok := RoutineProgram(cfg.Routines[name]).Attention(h.Routine(name), now); ok {
			out = append(out, Need{Kind: KindRoutine, Name: name, Flag: f})
		}
	}
	return out
}

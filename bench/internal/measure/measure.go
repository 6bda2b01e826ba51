// Package measure runs processes and summarises their wall times and peak memory.
package measure

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Sample is one finished process.
type Sample struct {
	Wall time.Duration
	// CPU is the user and system time the process used: on a machine other work keeps
	// busy, it is what the command itself cost when its wall time is mostly waiting.
	CPU    time.Duration
	MaxRSS int64 // peak resident set size in bytes, from the kernel's rusage
	Exit   int
	Stdout []byte
	Stderr []byte
}

// Run starts name with args in dir and waits for it. A nonzero exit is not an error: the
// caller decides (rg exits 1 when nothing matches).
func Run(dir, name string, args ...string) (Sample, error) {
	return RunInput(dir, nil, name, args...)
}

// RunInput is Run with stdin fed from input (a hook's event).
func RunInput(dir string, input []byte, name string, args ...string) (Sample, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if input != nil {
		cmd.Stdin = bytes.NewReader(input)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	s := Sample{Wall: time.Since(start), Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if cmd.ProcessState == nil {
		return s, err
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.MaxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	s.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	s.Exit = cmd.ProcessState.ExitCode()
	if _, ok := err.(*exec.ExitError); ok {
		err = nil
	}
	return s, err
}

// Summary condenses repeated wall times (in milliseconds) of one measure.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median_ms"`
	P95    float64 `json:"p95_ms"`
	Min    float64 `json:"min_ms"`
	Max    float64 `json:"max_ms"`
}

// Summarize returns the median, the 95th percentile (nearest rank), min and max of ds.
func Summarize(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	ms := make([]float64, len(ds))
	for i, d := range ds {
		ms[i] = float64(d.Microseconds()) / 1000
	}
	slices.Sort(ms)
	return Summary{N: len(ms), Median: Median(ms), P95: Percentile(ms, 95), Min: ms[0], Max: ms[len(ms)-1]}
}

// Optional is Summarize for a figure that may not have been measured: nil when ds is empty.
func Optional(ds []time.Duration) *Summary {
	if len(ds) == 0 {
		return nil
	}
	s := Summarize(ds)
	return &s
}

// Median of sorted values: the middle one, or the mean of the two middle ones.
func Median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Percentile of sorted values by the nearest-rank method.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	k := int(math.Ceil(p / 100 * float64(n)))
	return sorted[min(max(k, 1), n)-1]
}

// Millis formats a duration in milliseconds for tables: 3 significant figures.
func Millis(ms float64) string {
	switch {
	case math.IsNaN(ms):
		return "n/a"
	case ms >= 10_000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms >= 1000:
		return fmt.Sprintf("%.2f s", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.2f ms", ms)
	}
}

// Bytes formats a size in binary units.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

// ReplaceBetween swaps the text between two marker lines of a file (a README's table).
func ReplaceBetween(file, open, close, text string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, open), strings.Index(s, close)
	if i < 0 || j < i {
		return fmt.Errorf("%s: markers %s … %s not found", file, open, close)
	}
	return os.WriteFile(file, []byte(s[:i+len(open)]+"\n"+text+s[j:]), 0o644)
}

// BF is the absolute path of the bf binary in the folder bin, which make build fills.
func BF(bin string) (string, error) {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	bf := filepath.Join(bin, "bf")
	if _, err := os.Stat(bf); err != nil {
		return "", fmt.Errorf("%s is missing; run make build", bf)
	}
	return bf, nil
}

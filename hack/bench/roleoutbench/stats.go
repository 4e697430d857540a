package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// sample is one measurement: its time and other figures by unit
// ("req/op", "objs/s", …).
type sample struct {
	ns      float64
	metrics map[string]float64
}

// series is the samples of one measured thing, named as a Go benchmark
// ("RoleChange/tool=roleout").
type series struct {
	name    string
	samples []sample
}

// values returns the samples' figure for unit ("ns/op" is the time).
func (s *series) values(unit string) []float64 {
	var out []float64
	for _, x := range s.samples {
		if unit == "ns/op" {
			out = append(out, x.ns)
		} else if v, ok := x.metrics[unit]; ok {
			out = append(out, v)
		}
	}
	return out
}

// stat returns the median, minimum and maximum of the samples' figure
// for unit; NaN when there are none.
func (s *series) stat(unit string) (med, lo, hi float64) {
	if s == nil {
		return math.NaN(), math.NaN(), math.NaN()
	}
	v := s.values(unit)
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sort.Float64s(v)
	n := len(v)
	med = v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	return med, v[0], v[n-1]
}

// med returns the median of the samples' figure for unit.
func (s *series) med(unit string) float64 {
	m, _, _ := s.stat(unit)
	return m
}

// results collects every series and the rows of the summary table.
type results struct {
	order  []string
	series map[string]*series
	rows   []row
}

// row is one line of the summary table.
type row struct {
	num, scenario, measure, roleout, peer, ratio, target, verdict string
}

func newResults() *results { return &results{series: map[string]*series{}} }

// add records one sample of series name.
func (r *results) add(name string, d time.Duration, metrics map[string]float64) {
	s := r.get(name)
	s.samples = append(s.samples, sample{ns: float64(d.Nanoseconds()), metrics: metrics})
}

// get returns series name, created empty when new.
func (r *results) get(name string) *series {
	s, ok := r.series[name]
	if !ok {
		s = &series{name: name}
		r.series[name] = s
		r.order = append(r.order, name)
	}
	return s
}

// addRow appends a row to the summary table.
func (r *results) addRow(x row) { r.rows = append(r.rows, x) }

// fmtDur formats the median and range of a series' time.
func fmtDur(s *series) string {
	m, lo, hi := s.stat("ns/op")
	if math.IsNaN(m) {
		return "n/a"
	}
	return fmt.Sprintf("%s (%s–%s)", dur(m), dur(lo), dur(hi))
}

// dur formats nanoseconds with three significant digits.
func dur(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.0f ms", ns/1e6)
	default:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
}

// fmtNum formats the median and range of a series' figure for unit.
func fmtNum(s *series, unit, suffix string) string {
	m, lo, hi := s.stat(unit)
	if math.IsNaN(m) {
		return "n/a"
	}
	if lo == hi {
		return num(m) + suffix
	}
	return fmt.Sprintf("%s%s (%s–%s)", num(m), suffix, num(lo), num(hi))
}

func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// ratio formats a/b as "2.3×".
func ratio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// verdict says whether ok holds: "met" or "MISSED".
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// printTable writes the summary table as Markdown.
func (r *results) printTable(w io.Writer) {
	fmt.Fprintln(w, "| # | scenario | measure | roleout | peer | ratio | target | verdict |")
	fmt.Fprintln(w, "| - | --- | --- | --- | --- | --- | --- | --- |")
	for _, x := range r.rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			x.num, x.scenario, x.measure, x.roleout, x.peer, x.ratio, x.target, x.verdict)
	}
}

// printSeries writes every series' median and range, time and figures.
func (r *results) printSeries(w io.Writer) {
	for _, name := range r.order {
		s := r.series[name]
		if len(s.samples) == 0 {
			continue
		}
		units := map[string]bool{}
		for _, x := range s.samples {
			for u := range x.metrics {
				units[u] = true
			}
		}
		var parts []string
		for u := range units {
			parts = append(parts, fmt.Sprintf("%s %s", fmtNum(s, u, ""), u))
		}
		sort.Strings(parts)
		fmt.Fprintf(w, "  %-44s n=%d  %s  %s\n", name, len(s.samples), fmtDur(s), strings.Join(parts, "  "))
	}
}

// writeBenchFile writes every sample in the Go benchmark format that
// benchstat reads, one line per sample.
func (r *results) writeBenchFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(f, "goos: %s\ngoarch: %s\npkg: github.com/roleout/roleout/hack/bench/roleoutbench\ncpu: %s\n",
		runtime.GOOS, runtime.GOARCH, cpuModel())
	procs := runtime.GOMAXPROCS(0)
	for _, name := range r.order {
		s := r.series[name]
		for _, x := range s.samples {
			line := fmt.Sprintf("Benchmark%s-%d\t1\t%.0f ns/op", name, procs, x.ns)
			units := make([]string, 0, len(x.metrics))
			for u := range x.metrics {
				units = append(units, u)
			}
			sort.Strings(units)
			for _, u := range units {
				line += fmt.Sprintf("\t%g %s", x.metrics[u], u)
			}
			fmt.Fprintln(f, line)
		}
	}
	return f.Close()
}

// cpuModel returns the CPU's model name from /proc/cpuinfo.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// numCPU returns the number of cores.
func numCPU() int { return runtime.NumCPU() }

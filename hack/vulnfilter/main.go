// Command vulnfilter reads `govulncheck -format json` on standard input
// and sorts the vulnerabilities the code calls into three kinds: fixed in
// a newer version of a module roleout requires (make lint fails: bump the
// module), fixed only in a newer Go (reported: the Go version is the
// machine's, 1.26.8 here), and not fixed anywhere yet (reported).
//
//	govulncheck -format json ./... | go run ./hack/vulnfilter
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// message is the part of govulncheck's JSON stream vulnfilter reads.
type message struct {
	OSV *struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	} `json:"osv"`
	Finding *struct {
		OSV          string `json:"osv"`
		FixedVersion string `json:"fixed_version"`
		Trace        []struct {
			Module   string `json:"module"`
			Version  string `json:"version"`
			Function string `json:"function"`
		} `json:"trace"`
	} `json:"finding"`
}

// finding is one called vulnerability of one module.
type finding struct{ id, module, version, fixed string }

func main() {
	called, summaries, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulnfilter:", err)
		os.Exit(2)
	}
	fatal := 0
	for _, f := range called {
		kind := "no fix released yet"
		switch {
		case f.fixed != "" && f.module == "stdlib":
			kind = "fixed in Go " + f.fixed + " (the Go here is pinned; the Dockerfile builds with the newest golang:1.26)"
		case f.fixed != "":
			kind = "FIX: require " + f.module + "@" + f.fixed
			fatal++
		}
		fmt.Printf("%s %s@%s: %s — %s\n", f.id, f.module, f.version, summaries[f.id], kind)
	}
	fmt.Printf("vulnfilter: %d called vulnerabilities, %d fixable by a module upgrade\n", len(called), fatal)
	if fatal > 0 {
		os.Exit(1)
	}
}

// read returns the vulnerabilities the code calls (a finding whose trace
// reaches a function), one per id and module, and the summaries by id.
func read(r io.Reader) ([]finding, map[string]string, error) {
	dec := json.NewDecoder(r)
	seen := map[finding]bool{}
	summaries := map[string]string{}
	var out []finding
	for {
		var m message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read govulncheck output: %w", err)
		}
		if m.OSV != nil {
			summaries[m.OSV.ID] = m.OSV.Summary
		}
		if f := m.Finding; f != nil && len(f.Trace) > 0 && f.Trace[0].Function != "" {
			k := finding{id: f.OSV, module: f.Trace[0].Module, version: f.Trace[0].Version, fixed: f.FixedVersion}
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, summaries, nil
}

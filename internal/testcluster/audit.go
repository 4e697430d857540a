package testcluster

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// auditPolicy records every write request (not reads, not watches) at
// the Metadata level, so tests can count what a program wrote.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`

// writeAuditPolicy writes the audit policy into dir and returns the
// kube-apiserver flags that enable it.
func writeAuditPolicy(dir string) ([]string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		return nil, err
	}
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + filepath.Join(dir, "audit.log"),
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
	}, nil
}

// Write is one write request the API server answered, from its audit log.
type Write struct {
	Verb        string
	Resource    string // plural resource, e.g. deployments
	Subresource string
	Namespace   string
	Name        string
	UserAgent   string
	// As is the user the request impersonated, if any.
	As   string
	Code int
	Time time.Time
	// DryRun says the request asked for dryRun=All: nothing was written.
	DryRun bool
}

// Writes returns the write requests the API server completed whose user
// agent starts with userAgent ("" for all), oldest first.
func (c *Cluster) Writes(userAgent string) ([]Write, error) {
	f, err := os.Open(filepath.Join(c.Dir, "audit.log"))
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	defer f.Close()
	var out []Write
	sc := bufio.NewScanner(f)
	// A line that does not parse is an error unless it is the last: the
	// API server may be writing it.
	var partial error
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if partial != nil {
			return nil, partial
		}
		var ev struct {
			Stage      string `json:"stage"`
			Verb       string `json:"verb"`
			RequestURI string `json:"requestURI"`
			UserAgent  string `json:"userAgent"`
			As         struct {
				Username string `json:"username"`
			} `json:"impersonatedUser"`
			ObjectRef struct {
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
				Namespace   string `json:"namespace"`
				Name        string `json:"name"`
			} `json:"objectRef"`
			ResponseStatus struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
			StageTimestamp time.Time `json:"stageTimestamp"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			partial = fmt.Errorf("parse audit log: %w", err)
			continue
		}
		if ev.Stage != "ResponseComplete" || !strings.HasPrefix(ev.UserAgent, userAgent) {
			continue
		}
		out = append(out, Write{
			Verb: ev.Verb, Resource: ev.ObjectRef.Resource, Subresource: ev.ObjectRef.Subresource,
			Namespace: ev.ObjectRef.Namespace, Name: ev.ObjectRef.Name,
			UserAgent: ev.UserAgent, As: ev.As.Username, Code: ev.ResponseStatus.Code, Time: ev.StageTimestamp,
			DryRun: strings.Contains(ev.RequestURI, "dryRun=All"),
		})
	}
	return out, sc.Err()
}

package testcluster

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// State records a detached cluster so another process can find and stop
// it (make cluster-up writes it, make cluster-down reads it).
type State struct {
	Dir        string           `json:"dir"`
	Kubeconfig string           `json:"kubeconfig"`
	Host       string           `json:"host"`
	Components []ComponentState `json:"components"`
}

// ComponentState is one process of a detached cluster.
type ComponentState struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
	Log  string `json:"log"`
}

// State returns the cluster's state record.
func (c *Cluster) State() State {
	s := State{Dir: c.Dir, Kubeconfig: c.Kubeconfig, Host: c.Config.Host}
	for _, comp := range c.comps() {
		s.Components = append(s.Components, ComponentState{Name: comp.name, PID: comp.pid(), Log: comp.logPath})
	}
	return s
}

// WriteState writes the cluster's state record to path.
func (c *Cluster) WriteState(path string) error {
	data, err := json.MarshalIndent(c.State(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// StopState stops the processes recorded in the state file at path, in
// reverse start order, and removes the file. A missing file is not an
// error: there is nothing to stop.
func StopState(path string) error {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("read cluster state %s: %w", path, err)
	}
	for i := len(s.Components) - 1; i >= 0; i-- {
		if pid := s.Components[i].PID; pid > 0 {
			stopGroup(pid, 10*time.Second, nil)
		}
	}
	for _, comp := range s.Components {
		if GroupAlive(comp.PID) {
			return fmt.Errorf("%s (process group %d) is still running", comp.Name, comp.PID)
		}
	}
	return os.Remove(path)
}

// AddToState records another process (a git server the demo started, say)
// in the state file at path, so StopState stops it with the cluster.
func AddToState(path, name string, pid int, log string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	s.Components = append(s.Components, ComponentState{Name: name, PID: pid, Log: log})
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// ReadState reads the state file at path; ok is false when there is none
// or its API server is gone.
func ReadState(path string) (State, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return State{}, false
	}
	var s State
	if json.Unmarshal(data, &s) != nil {
		return State{}, false
	}
	for _, c := range s.Components {
		if c.Name == "kube-apiserver" && GroupAlive(c.PID) {
			return s, true
		}
	}
	return s, false
}

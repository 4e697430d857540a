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
	for _, comp := range c.components {
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

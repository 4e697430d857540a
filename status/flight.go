package status

import "time"

// The steps of a Flight.
const (
	// StepApplying: the wave's objects are being written.
	StepApplying = "applying"
	// StepWaiting: they are written; the wave waits for them to be
	// healthy (its health gate).
	StepWaiting = "waiting"
)

// Flight is the wave an app's rollout is in now, as the running agent
// knows it between two status commits (the status branch records each
// wave once it ends): what the web view's progress bar shows. It is not
// a file of the status branch.
type Flight struct {
	App string `json:"app"`
	// SourceRevision is the commit being rolled out.
	SourceRevision string `json:"revision"`
	// Wave is the wave's position in the plan (1 is the first; 0 the
	// prerequisite step) of Waves; UpgradeOrder is its order.
	Wave         int      `json:"wave"`
	Waves        int      `json:"waves"`
	UpgradeOrder int      `json:"upgradeOrder"`
	Roles        []string `json:"roles,omitempty"`
	// Step is StepApplying or StepWaiting.
	Step string `json:"step"`
	// Objects is how many objects the wave writes; Applied how many are
	// written so far, Ready how many of them are healthy.
	Objects int       `json:"objects"`
	Applied int       `json:"applied"`
	Ready   int       `json:"ready"`
	Started time.Time `json:"started"`
}

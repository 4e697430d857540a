package main

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/sirupsen/logrus"
)

// prettyFormatter writes log lines for a person following a rollout on a
// terminal: the time, the message, then the fields that say what and how
// long, leaving out the ones every line of a rollout repeats.
type prettyFormatter struct{}

// repeated are fields the surrounding lines already make clear.
var repeated = map[string]bool{"app": true, "commit": true, "revision": true, "role": true, "upgradeOrder": true, "step": true}

func (prettyFormatter) Format(e *logrus.Entry) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(e.Time.Format("15:04:05"))
	if e.Level != logrus.InfoLevel {
		fmt.Fprintf(&b, " %s", e.Level.String())
	}
	if wave, ok := e.Data["wave"]; ok {
		fmt.Fprintf(&b, " wave %v", wave)
	} else if step, ok := e.Data["step"]; ok {
		fmt.Fprintf(&b, " %v", step)
	}
	fmt.Fprintf(&b, "  %s", e.Message)
	keys := make([]string, 0, len(e.Data))
	for k := range e.Data {
		if !repeated[k] && k != "wave" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, e.Data[k])
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

package ui

import (
	"fmt"
	"time"
)

// picture is an SVG the server draws: boxes, lines and text, each
// escaped by html/template like any other text.
type picture struct {
	Width, Height int
	Boxes         []box
	Lines         []line
	Title         string
}

type box struct {
	X, Y, W, H int
	Class      string
	Label, Sub string
	Href       string
	Tip        string
}

type line struct{ X1, Y1, X2, Y2 int }

// Picture sizes.
const (
	boxW, boxH = 180, 44
	colGap     = 50
	rowGap     = 12
	pad        = 10
	maxBoxes   = 40 // roles drawn per wave; the table lists them all
)

// wavesPicture draws the waves left to right, each a column of its
// roles, an arrow from each wave to the next.
func wavesPicture(app string, ws []wave) picture {
	p := picture{Title: "waves of " + app + " in upgradeOrder"}
	tallest := 0
	for i, w := range ws {
		x := pad + i*(boxW+colGap)
		n := min(len(w.Roles), maxBoxes)
		for j := 0; j < n; j++ {
			r := w.Roles[j]
			sub := fmt.Sprintf("wave %d · %s", w.UpgradeOrder, r.Result)
			if r.RevisionNumber > 0 {
				sub = fmt.Sprintf("wave %d · rev %d · %s", w.UpgradeOrder, r.RevisionNumber, r.Result)
			}
			p.Boxes = append(p.Boxes, box{X: x, Y: pad + 20 + j*(boxH+rowGap), W: boxW, H: boxH, Class: "r-" + r.Result,
				Label: clip(r.Name, 24), Sub: sub, Href: "#role-" + r.Name, Tip: r.Message})
		}
		if len(w.Roles) > maxBoxes {
			p.Boxes = append(p.Boxes, box{X: x, Y: pad + 20 + n*(boxH+rowGap), W: boxW, H: boxH / 2, Class: "more",
				Label: fmt.Sprintf("+%d more roles", len(w.Roles)-maxBoxes)})
			n++
		}
		tallest = max(tallest, n)
		if i > 0 {
			y := pad + 20 + boxH/2
			p.Lines = append(p.Lines, line{X1: x - colGap + 4, Y1: y, X2: x - 6, Y2: y})
		}
	}
	p.Width = pad*2 + max(1, len(ws))*(boxW+colGap) - colGap
	p.Height = pad*2 + 20 + max(1, tallest)*(boxH+rowGap)
	return p
}

// timelinePicture draws each rollout (newest first, at most 50) as a bar
// as long as it took, coloured by its result.
func timelinePicture(rows []historyRow) picture {
	p := picture{Title: "rollout durations, newest first"}
	rows = rows[:min(len(rows), 50)]
	var longest time.Duration
	for _, r := range rows {
		longest = max(longest, r.Duration)
	}
	const barMax, rowH, labelW = 500, 18, 150
	for i, r := range rows {
		w := 2
		if longest > 0 {
			w = max(2, int(int64(barMax)*int64(r.Duration)/int64(longest)))
		}
		p.Boxes = append(p.Boxes, box{X: labelW, Y: pad + i*(rowH+4), W: w, H: rowH, Class: "r-" + r.Result,
			Label: r.Started.UTC().Format("01-02 15:04:05"), Sub: r.Duration.Round(time.Millisecond).String(),
			Tip: r.Trigger + " " + r.SourceRevision + ": " + r.Result})
	}
	p.Width = labelW + barMax + 90
	p.Height = pad*2 + max(1, len(rows))*(rowH+4)
	return p
}

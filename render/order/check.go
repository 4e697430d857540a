package order

import (
	"fmt"

	"github.com/roleout/roleout/internal/object"
)

// Place is where an object goes in a rollout.
type Place struct {
	// Wave is the wave's position in apply order, from 1; 0 is the
	// prerequisite step, before every wave.
	Wave int
	// Role is the object's role; "" in the prerequisite step.
	Role string
}

// String names the place in a sentence: "wave 3" or "the prerequisite
// step".
func (p Place) String() string {
	if p.Wave == 0 {
		return "the prerequisite step"
	}
	return fmt.Sprintf("wave %d", p.Wave)
}

// Late is a need that a later wave meets: From's wave is applied and
// waited on before To exists.
type Late struct {
	Need
	FromPlace, ToPlace Place
}

// String is the warning: "wave 3's Deployment/ns/manager (role manager)
// uses ServiceAccount/ns/manager from wave 4 (role rbac): its pods cannot
// start until then".
func (l Late) String() string {
	return fmt.Sprintf("%s's %s (role %s) %s %s from %s (role %s): %s", l.FromPlace, l.From, l.FromPlace.Role,
		l.Reason, l.To, l.ToPlace, l.ToPlace.Role, l.Effect)
}

// Check returns the needs that a later wave meets, given where each
// object goes (place; an object it does not know is left out).
func Check(needs []Need, place func(object.Ref) (Place, bool)) []Late {
	var out []Late
	for _, n := range needs {
		from, ok1 := place(n.From)
		to, ok2 := place(n.To)
		if ok1 && ok2 && to.Wave > from.Wave {
			out = append(out, Late{Need: n, FromPlace: from, ToPlace: to})
		}
	}
	return out
}

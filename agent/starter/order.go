package starter

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/order"
)

// orderRoles gives a's roles their upgradeOrder from what their objects
// need of each other (render/order): a role comes after every role
// holding something its objects need; roles that need each other share
// a wave. The name tiers of Heuristic (stateful, cache, back end, front
// end) only break ties: a role's order is its tier's, raised to one past
// the roles it needs. members are the wave objects of each role ("" is
// the role default).
func orderRoles(a *App, objs []*unstructured.Unstructured, members map[string][]*unstructured.Unstructured) {
	roleOf := map[object.Ref]string{}
	for name, ms := range members {
		for _, o := range ms {
			roleOf[object.RefOf(o)] = name
		}
	}
	// why[a][b] is the first need of a role a of role b.
	why := map[string]map[string]order.Need{}
	for _, n := range order.Needs(objs) {
		from, ok1 := roleOf[n.From]
		to, ok2 := roleOf[n.To]
		if !ok1 || !ok2 || from == to {
			continue
		}
		if why[from] == nil {
			why[from] = map[string]order.Need{}
		}
		if _, ok := why[from][to]; !ok {
			why[from][to] = n
		}
	}
	a.placeDefault(why)

	tiers := map[string]guess{}
	matched := false
	for _, r := range a.Roles {
		g := guessOrder(r.Paths[0], kindsOf(members[r.Name]))
		tiers[r.Name] = g
		matched = matched || g.order != 0
	}
	floor := 1
	if matched {
		floor = OrderBackend
	}
	orders := map[string]int{}
	for _, comp := range components(a.Roles, why) {
		o, reason := 0, ""
		for _, name := range comp {
			g := tiers[name]
			if g.order == 0 {
				g = guess{floor, "no dependency and no name rule: with the others"}
				if matched {
					g.reason = "no dependency and no name rule: with the back ends"
				}
			}
			if g.order > o {
				o, reason = g.order, g.reason
			}
		}
		var after []string
		for _, name := range comp {
			for dep, n := range why[name] {
				if slices.Contains(comp, dep) {
					continue
				}
				if orders[dep]+1 > o {
					o = orders[dep] + 1
				}
				after = append(after, fmt.Sprintf("%s (%s)", dep, n))
			}
		}
		if len(after) > 0 {
			slices.Sort(after)
			reason = "after " + strings.Join(after, "; ")
		}
		if len(comp) > 1 {
			reason = fmt.Sprintf("with %s, whose objects need each other; %s", strings.Join(comp, ", "), reason)
		}
		for _, name := range comp {
			orders[name] = o
		}
		for i := range a.Roles {
			if slices.Contains(comp, a.Roles[i].Name) {
				a.Roles[i].UpgradeOrder, a.Roles[i].Reason = o, reason
			}
		}
	}
	slices.SortStableFunc(a.Roles, func(x, y Role) int {
		if x.UpgradeOrder != y.UpgradeOrder {
			return x.UpgradeOrder - y.UpgradeOrder
		}
		return strings.Compare(x.Name, y.Name)
	})
}

// placeDefault puts the role default (the objects no proposed role
// claims) after the roles when its objects need theirs
// (unorderedRoles: Last), and says so when the two need each other.
func (a *App) placeDefault(why map[string]map[string]order.Need) {
	needsRoles := len(why[""]) > 0
	var neededBy []string
	for from, to := range why {
		if _, ok := to[""]; ok && from != "" {
			neededBy = append(neededBy, from)
		}
	}
	slices.Sort(neededBy)
	switch {
	case needsRoles && len(neededBy) == 0:
		a.UnorderedRoles = "Last"
		a.notes = append(a.notes, "unorderedRoles: Last: the objects of the overlay's own files (role default) need the roles' objects")
	case needsRoles:
		a.notes = append(a.notes, fmt.Sprintf("the overlay's own objects (role default) and roles %s need each other: give them one role", strings.Join(neededBy, ", ")))
	}
	delete(why, "")
	for _, to := range why {
		delete(to, "")
	}
}

// components returns the roles grouped into sets that need each other
// (strongly connected components of why), each set after every set it
// needs, in the roles' order where nothing decides (Tarjan's algorithm,
// which emits a component after the ones it reaches).
func components(roles []Role, why map[string]map[string]order.Need) [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		var deps []string
		for d := range why[v] {
			deps = append(deps, d)
		}
		slices.Sort(deps)
		for _, w := range deps {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			slices.Sort(comp)
			out = append(out, comp)
		}
	}
	for _, r := range roles {
		if _, seen := index[r.Name]; !seen {
			visit(r.Name)
		}
	}
	return out
}

// kindsOf is the set of objs' kinds.
func kindsOf(objs []*unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		out[o.GetKind()] = true
	}
	return out
}

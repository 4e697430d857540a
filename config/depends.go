package config

import (
	"fmt"
	"slices"
	"strings"
)

// validateDependsOn checks every app's dependsOn: names of other apps of
// the configuration, each once, and no cycle (a cycle would wait
// forever).
func (c *Config) validateDependsOn(add func(field, format string, args ...any)) {
	names := make([]string, 0, len(c.Apps))
	for _, a := range c.Apps {
		names = append(names, a.Name)
	}
	for i, a := range c.Apps {
		seen := map[string]bool{}
		for j, d := range a.DependsOn {
			field := fmt.Sprintf("apps[%d].dependsOn[%d]", i, j)
			switch {
			case d == a.Name:
				add(field, "app %s cannot depend on itself: remove %q", a.Name, d)
			case !slices.Contains(names, d):
				hint := ""
				if best := closestName(d, names); best != "" {
					hint = fmt.Sprintf(" (did you mean %s?)", best)
				}
				add(field, "no app is named %q%s: dependsOn names apps of this configuration (%s)", d, hint, strings.Join(names, ", "))
			case seen[d]:
				add(field, "%q is listed twice: remove one", d)
			}
			seen[d] = true
		}
	}
	if cycle := c.dependencyCycle(); cycle != nil {
		add("apps", "dependsOn makes a cycle, %s: each would wait for the next forever; remove one of these dependencies", strings.Join(cycle, " → "))
	}
}

// dependencyCycle returns the apps of a dependsOn cycle, the first again
// at the end (a → b → a), or nil.
func (c *Config) dependencyCycle() []string {
	deps := map[string][]string{}
	for _, a := range c.Apps {
		deps[a.Name] = a.DependsOn
	}
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(string) []string
	visit = func(n string) []string {
		state[n] = active
		stack = append(stack, n)
		for _, d := range deps[n] {
			if _, known := deps[d]; !known || d == n {
				continue // reported as unknown or as itself
			}
			switch state[d] {
			case active:
				i := slices.Index(stack, d)
				return append(slices.Clone(stack[i:]), d)
			case unvisited:
				if cyc := visit(d); cyc != nil {
					return cyc
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return nil
	}
	for _, a := range c.Apps {
		if state[a.Name] == unvisited {
			if cyc := visit(a.Name); cyc != nil {
				return cyc
			}
		}
	}
	return nil
}

// Dependencies returns the apps app depends on, directly or through
// others, each once, nearest first.
func (c *Config) Dependencies(app string) []App {
	var out []App
	seen := map[string]bool{app: true}
	queue := []string{app}
	for len(queue) > 0 {
		a, err := c.App(queue[0])
		queue = queue[1:]
		if err != nil {
			continue
		}
		for _, d := range a.DependsOn {
			if seen[d] {
				continue
			}
			seen[d] = true
			if dep, err := c.App(d); err == nil {
				out = append(out, dep)
				queue = append(queue, d)
			}
		}
	}
	return out
}

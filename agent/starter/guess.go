package starter

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Upgrade orders guessed for a role from its base (Heuristic describes
// the rule).
const (
	OrderStateful = 1 // databases and anything with a StatefulSet or PersistentVolumeClaim
	OrderCache    = 2
	OrderBackend  = 3
	OrderFrontend = 4
)

// Heuristic is the rule orderRoles follows, for help texts.
const Heuristic = `upgradeOrder follows what each base's objects need, then its name and kinds:
  1  stateful: a StatefulSet or PersistentVolumeClaim, or a database-like
     name (db, database, postgres, mysql, mongo, kafka, …)
  2  cache: cache, redis, memcached, valkey
  3  back end: backend, api, server, service, worker, …
  4  front end: frontend, web, ui, www, gateway, ingress, router, …
These only break ties: first, a role comes after every role holding an
object its objects need (a workload after its ServiceAccount, bindings,
ConfigMaps, Secrets and claims; a webhook after the pods it calls; a
custom resource after its controller; a certificate after its issuer).
A base that matches no name rule goes with the back ends (3), or, when no
base of an overlay matches any, with all the others in one wave.`

var (
	statefulWords = words("db database databases postgres postgresql pg mysql mariadb mongo mongodb cassandra etcd sql cockroach cockroachdb kafka zookeeper elasticsearch opensearch minio storage rabbitmq nats queue mq")
	cacheWords    = words("cache caches redis memcached memcache valkey keydb dragonfly")
	backendWords  = words("backend backends api apis server service services svc app worker workers core engine")
	frontendWords = words("frontend front web ui www client site portal gateway ingress proxy router edge nginx")
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// guess is one base's guessed order and why.
type guess struct {
	order  int // 0: no rule matched
	reason string
}

// guessOrder applies the rule of Heuristic to a base at dir whose objects
// have kinds.
func guessOrder(dir string, kinds map[string]bool) guess {
	tokens := nameTokens(path.Base(dir))
	match := func(set map[string]bool) string {
		for _, t := range tokens {
			// "userdb", "ordersdb": a database too.
			if set[t] || (set["db"] && len(t) > 2 && strings.HasSuffix(t, "db")) {
				return t
			}
		}
		return ""
	}
	for _, k := range []string{"StatefulSet", "PersistentVolumeClaim"} {
		if kinds[k] {
			return guess{OrderStateful, "stateful (has a " + k + ")"}
		}
	}
	if w := match(statefulWords); w != "" {
		return guess{OrderStateful, fmt.Sprintf("stateful (name %q)", w)}
	}
	if w := match(cacheWords); w != "" {
		return guess{OrderCache, fmt.Sprintf("cache (name %q)", w)}
	}
	if w := match(backendWords); w != "" {
		return guess{OrderBackend, fmt.Sprintf("back end (name %q)", w)}
	}
	if w := match(frontendWords); w != "" {
		return guess{OrderFrontend, fmt.Sprintf("front end (name %q)", w)}
	}
	return guess{}
}

// nameTokens splits a directory name into lower-case words.
func nameTokens(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
}

// guessRoles proposes one role per base of an overlay, with names unique
// within the overlay and orders by the rule of Heuristic, sorted by order
// then name.
func (t *tree) guessRoles(bases []*node) []Role {
	dirs := make([]string, len(bases))
	for i, b := range bases {
		dirs[i] = b.dir
	}
	names := uniqueNames(dirs, "role")
	roles := make([]Role, len(bases))
	matched := false
	for i, b := range bases {
		g := guessOrder(b.dir, t.kinds(b))
		matched = matched || g.order != 0
		roles[i] = Role{Name: names[i], UpgradeOrder: g.order, Paths: []string{b.dir}, Reason: g.reason}
	}
	if !matched {
		// An order from names alone would be a guess that can deadlock
		// (a Deployment before its ServiceAccount): one wave, until the
		// objects say more (orderRoles).
		sort.Slice(roles, func(i, j int) bool { return roles[i].Name < roles[j].Name })
		for i := range roles {
			roles[i].UpgradeOrder = 1
			roles[i].Reason = "no name rule matched any base, and the objects were not read: one wave"
		}
		return roles
	}
	for i := range roles {
		if roles[i].UpgradeOrder == 0 {
			roles[i].UpgradeOrder = OrderBackend
			roles[i].Reason = "no rule matched: with the back ends"
		}
	}
	sort.SliceStable(roles, func(i, j int) bool {
		if roles[i].UpgradeOrder != roles[j].UpgradeOrder {
			return roles[i].UpgradeOrder < roles[j].UpgradeOrder
		}
		return roles[i].Name < roles[j].Name
	})
	return roles
}

// genericDirs are directory names that say nothing about an app or role:
// they are skipped when a name is made from a path.
var genericDirs = words("overlays overlay envs env environments environment kustomize kustomization k8s kube kubernetes deploy deployment deployments manifests bases base apps components")

// uniqueNames gives each slash path a DNS-1123 label: its last
// meaningful directory name ("overlays/prod" → "prod"), with the names of
// the directories above it added while two paths would get the same name
// ("a/overlays/prod", "b/overlays/prod" → "a-prod", "b-prod"), and a
// number as the last resort. The root "." takes fallback.
func uniqueNames(paths []string, fallback string) []string {
	parts := make([][]string, len(paths))
	depth := make([]int, len(paths))
	for i, p := range paths {
		var meaningful []string
		all := strings.Split(p, "/")
		if p == "." || p == "" {
			all = []string{fallback}
		}
		for _, c := range all {
			if !genericDirs[strings.ToLower(c)] {
				meaningful = append(meaningful, c)
			}
		}
		if len(meaningful) == 0 {
			meaningful = all[len(all)-1:]
		}
		parts[i] = meaningful
		depth[i] = 1
	}
	name := func(i int) string {
		ps := parts[i]
		return dnsLabel(strings.Join(ps[len(ps)-depth[i]:], "-"), fallback)
	}
	for {
		groups := map[string][]int{}
		for i := range paths {
			groups[name(i)] = append(groups[name(i)], i)
		}
		grew := false
		for _, g := range groups {
			if len(g) < 2 {
				continue
			}
			for _, i := range g {
				if depth[i] < len(parts[i]) {
					depth[i]++
					grew = true
				}
			}
		}
		if !grew {
			break
		}
	}
	out := make([]string, len(paths))
	taken := map[string]bool{}
	for i := range paths {
		n := name(i)
		for k := 2; taken[n]; k++ {
			n = dnsLabel(fmt.Sprintf("%s-%d", name(i), k), fallback)
		}
		taken[n] = true
		out[i] = n
	}
	return out
}

var notLabel = regexp.MustCompile(`[^a-z0-9]+`)

// dnsLabel makes s a DNS-1123 label: lower case, runs of other characters
// as one "-", at most 63 characters; fallback when nothing is left.
func dnsLabel(s, fallback string) string {
	s = strings.Trim(notLabel.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 63 {
		s = strings.TrimRight(s[:63], "-")
	}
	if s == "" {
		return fallback
	}
	return s
}

package config

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/roleout/roleout/apply/healthcheck"
	"github.com/roleout/roleout/model"
)

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// cronParser accepts five fields, an optional leading seconds field and
// descriptors such as @hourly.
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron parses a cron expression of schedule.cron or windows[].cron:
// five fields, an optional leading seconds field, or a descriptor such as
// @hourly.
func ParseCron(expr string) (cron.Schedule, error) { return cronParser.Parse(expr) }

// validate checks the configuration after defaults; every error names the
// field as a path (apps[1].roles[0].upgradeOrder) and says what to do.
func (c *Config) validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.APIVersion != APIVersion {
		add("apiVersion", "must be %s, got %q: write apiVersion: %s (apiVersion/kind identify an agent configuration)", APIVersion, c.APIVersion, APIVersion)
	}
	if c.Kind != Kind {
		add("kind", "must be %s, got %q: write kind: %s (apiVersion/kind identify an agent configuration)", Kind, c.Kind, Kind)
	}
	c.validateSource(add)
	if c.Schedule.Interval.Duration < 0 {
		add("schedule.interval", "must be positive, got %s", c.Schedule.Interval.Duration)
	}
	if d := c.Schedule.DriftCheckInterval; d != nil && d.Duration < 0 {
		add("schedule.driftCheckInterval", "must be 0s (never) or positive, got %s", d.Duration)
	}
	if c.Schedule.Cron != "" {
		if c.Schedule.Interval.Duration != 0 {
			add("schedule", "set interval or cron, not both")
		}
		if _, err := cronParser.Parse(c.Schedule.Cron); err != nil {
			add("schedule.cron", "invalid cron expression %q: %v; %s", c.Schedule.Cron, err, cronHint)
		}
	}
	if _, err := time.LoadLocation(c.Schedule.TimeZone); err != nil {
		add("schedule.timeZone", "unknown time zone %q", c.Schedule.TimeZone)
	}
	if d := c.Healthz.MaxPollAge.Duration; d < 0 {
		add("healthz.maxPollAge", "must be positive, got %s", d)
	} else if iv := c.Schedule.Interval.Duration; d > 0 && d <= iv {
		add("healthz.maxPollAge", "must be longer than schedule.interval (%s), or /healthz fails between polls; got %s", iv, d)
	}
	c.Masks.validate(add)
	c.Sharding.validate(add)
	c.UI.validate(add)
	c.Forge.validate(c.Source.URL, add)
	for i, n := range c.Notifications {
		n.validate(fmt.Sprintf("notifications[%d]", i), add)
	}
	if pr := c.Source.PullRequests; pr != nil && pr.ServiceAccount != "" {
		ns, name, ok := strings.Cut(pr.ServiceAccount, "/")
		if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
			add("source.pullRequests.serviceAccount", "must be namespace/name of a ServiceAccount, got %q", pr.ServiceAccount)
		}
	}
	if pr := c.Source.PullRequests; pr != nil {
		if pr.MaxHeadsPerPoll < 0 || pr.MaxHeadsPerPoll > 1000 {
			add("source.pullRequests.maxHeadsPerPoll", "must be between 1 and 1000 heads (0: the default, %d), got %d", DefaultPreviewHeadsPerPoll, pr.MaxHeadsPerPoll)
		}
		if pr.MaxTimePerPoll.Duration < 0 {
			add("source.pullRequests.maxTimePerPoll", "must be a positive duration such as 2m, got %s", pr.MaxTimePerPoll.Duration)
		}
	}
	if !validBranchName(c.Status.Branch) {
		add("status.branch", "invalid branch name %q", c.Status.Branch)
	}
	if c.Concurrency < 1 || c.Concurrency > 64 {
		add("concurrency", "must be between 1 and 64 apps at once, got %d", c.Concurrency)
	}
	if c.RenderProcesses < 0 || c.RenderProcesses > 64 {
		add("renderProcesses", "must be between 1 and 64 (0 takes one per CPU), got %d", c.RenderProcesses)
	}
	if c.Apply.Concurrency < 0 || c.Apply.Concurrency > 256 {
		add("apply.concurrency", "must be between 1 and 256 (0 takes the default 16), got %d", c.Apply.Concurrency)
	}
	if len(c.Apps) == 0 && len(c.AppGenerators) == 0 {
		add("apps", "at least one app (or appGenerators) is required")
	}
	c.validateGenerators(add)
	validateDestinations("defaults", c.Defaults.AllowedNamespaces, c.Defaults.AllowedKinds, add)
	seen := map[string]int{}
	for i := range c.Apps {
		a := &c.Apps[i]
		field := fmt.Sprintf("apps[%d]", i)
		if j, ok := seen[a.Name]; ok && a.Name != "" {
			add(field+".name", "duplicate app name %q (apps[%d] has it too): app names must be unique; rename one", a.Name, j)
		} else if !ok {
			seen[a.Name] = i
		}
		a.validate(field, add)
	}
	c.validateDependsOn(add)
	if _, err := healthcheck.Compile(c.Defaults.HealthChecks); err != nil {
		add("defaults.healthChecks", "%v", err)
	}
	for i, a := range c.Apps {
		if _, err := healthcheck.Compile(a.HealthChecks); err != nil {
			add(fmt.Sprintf("apps[%d].healthChecks", i), "%v", err)
		}
	}
	return errors.Join(errs...)
}

func (c *Config) validateSource(add func(field, format string, args ...any)) {
	s := c.Source
	if s.URL == "" {
		add("source.url", "required: the git repository to poll, such as https://github.com/org/config.git or ssh://git@github.com/org/config.git")
	}
	refs := 0
	for _, v := range []string{s.Branch, s.Tag, s.Semver, s.Commit} {
		if v != "" {
			refs++
		}
	}
	switch {
	case refs == 0:
		add("source.branch", "required: set one of branch, tag, semver or commit")
	case refs > 1:
		var set []string
		for _, r := range []struct{ name, value string }{{"branch", s.Branch}, {"tag", s.Tag}, {"semver", s.Semver}, {"commit", s.Commit}} {
			if r.value != "" {
				set = append(set, fmt.Sprintf("%s (%q)", r.name, r.value))
			}
		}
		add("source", "set only one of branch, tag, semver and commit; %s are set: keep the one to follow and remove the others", strings.Join(set, " and "))
	}
	if s.Commit != "" && !commitRE.MatchString(s.Commit) {
		add("source.commit", "must be a full 40-character lower-case commit hash, got %q", s.Commit)
	}
	if s.Semver != "" {
		if _, err := semver.NewConstraint(s.Semver); err != nil {
			add("source.semver", "invalid semver range %q: %v", s.Semver, err)
		}
	}
	if s.Branch != "" && c.Status.Branch == s.Branch {
		add("status.branch", "must differ from source.branch %q: the agent's own commits would trigger it", s.Branch)
	}
	if v := s.Verify; v != nil {
		if v.Mode != "" && v.Mode != "head" && v.Mode != "tag" {
			add("source.verify.mode", "must be head (verify the signature of each followed commit) or tag (verify the signed tag; needs source.tag or source.semver), got %q", v.Mode)
		}
		if v.Mode == "tag" && s.Tag == "" && s.Semver == "" {
			add("source.verify.mode", "tag needs source.tag or source.semver")
		}
		if len(v.PGPKeys) == 0 && len(v.SSHKeys) == 0 {
			add("source.verify", "name the trusted keys: pgpKeys (armored public keys) or sshKeys (authorized_keys or allowed-signers files)")
		}
	}
}

func (a *App) validate(field string, add func(field, format string, args ...any)) {
	if a.Name == "" {
		add(field+".name", "required: a name for the app, a DNS label such as web or llm-serving")
	} else if msgs := validation.IsDNS1123Label(a.Name); len(msgs) > 0 {
		add(field+".name", "%q is not a valid name: app names are DNS labels (at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit)%s", a.Name, suggestLabel(a.Name))
	}
	switch {
	case a.Path == "":
		add(field+".path", "required: the overlay directory, relative to the repository root")
	case path.IsAbs(a.Path):
		add(field+".path", "%q must be relative and inside the repository, not absolute: write %q, relative to the repository root", a.Path, strings.TrimLeft(path.Clean(a.Path), "/"))
	case strings.HasPrefix(path.Clean(a.Path), ".."):
		add(field+".path", "%q must be relative and inside the repository: it leaves the repository through \"..\"; name the overlay directory from the repository root, such as apps/web", a.Path)
	}
	if a.Namespace != "" {
		if msgs := validation.IsDNS1123Label(a.Namespace); len(msgs) > 0 {
			add(field+".namespace", "%q is not a valid namespace: %s", a.Namespace, strings.Join(msgs, "; "))
		}
	}
	if r := a.KubeconfigSecret; r != nil {
		if a.Kubeconfig != "" {
			add(field+".kubeconfigSecret", "set kubeconfig (a file) or kubeconfigSecret, not both: remove one of them")
		}
		if msgs := validation.IsDNS1123Subdomain(r.Name); len(msgs) > 0 {
			add(field+".kubeconfigSecret.name", "%q is not a valid Secret name: %s", r.Name, strings.Join(msgs, "; "))
		}
		if r.Namespace != "" {
			if msgs := validation.IsDNS1123Label(r.Namespace); len(msgs) > 0 {
				add(field+".kubeconfigSecret.namespace", "%q is not a valid namespace: %s", r.Namespace, strings.Join(msgs, "; "))
			}
		}
		if r.Key != "" {
			if msgs := validation.IsConfigMapKey(r.Key); len(msgs) > 0 {
				add(field+".kubeconfigSecret.key", "%q is not a valid key: %s", r.Key, strings.Join(msgs, "; "))
			}
		}
	}
	if a.UnorderedRoles != "First" && a.UnorderedRoles != "Last" {
		add(field+".unorderedRoles", "must be First or Last, got %q", a.UnorderedRoles)
	}
	if a.Timeout.Duration <= 0 {
		add(field+".timeout", "must be positive, got %s", a.Timeout.Duration)
	}
	if *a.RevisionHistoryLimit < 1 {
		add(field+".revisionHistoryLimit", "must be 1 or more, got %d", *a.RevisionHistoryLimit)
	}
	if r := a.Render; r.MaxObjects < 0 || r.MaxBytes < 0 || r.MaxFileBytes < 0 || r.Timeout.Duration < 0 || r.MaxMemoryBytes < 0 {
		add(field+".render", "limits must be positive (0 takes the default)")
	}
	if m := a.Render.MaxMemoryBytes; m > 0 && m < 256<<20 {
		add(field+".render.maxMemoryBytes", "must be at least 268435456 (256 MiB: the sandbox process needs about 100 MiB to start), got %d", m)
	}
	validateDestinations(field, a.AllowedNamespaces, a.AllowedKinds, add)
	for i, ann := range a.AllowedAnnotations {
		if !slices.Contains(GrantingAnnotations, ann) {
			hint := ""
			if best := closestName(ann, GrantingAnnotations); best != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", best)
			}
			add(fmt.Sprintf("%s.allowedAnnotations[%d]", field, i), "%q is not an annotation roleout honours%s: write %s", ann, hint, strings.Join(GrantingAnnotations, " or "))
		}
	}
	a.validateRoles(field, add)
	a.validateWindows(field, add)
	a.validateSubstitute(field, add)
	a.validateDecryption(field, add)
}

// validateRoles checks the app's roles (field is apps[1]).
func (a *App) validateRoles(field string, add func(field, format string, args ...any)) {
	roles := map[string]bool{}
	for j, r := range a.Roles {
		rf := fmt.Sprintf("%s.roles[%d]", field, j)
		if r.Name == "" {
			add(rf+".name", "required: every role needs a name, a DNS label such as database (objects join it by roleout.dev/role: NAME or by the role's selector, kinds, names or paths)")
		} else if err := model.CheckRoleName(a.Name, r.Name); err != nil {
			add(rf+".name", "%v", err)
		}
		if roles[r.Name] && r.Name != "" {
			add(rf+".name", "duplicate role %q", r.Name)
		}
		roles[r.Name] = true
		if r.UpgradeOrder != nil && *r.UpgradeOrder < 0 {
			add(rf+".upgradeOrder", "must be 0 or more, got %d: lower goes first and unset counts as 0; to put this role last, give the others lower orders or set unorderedRoles: Last", *r.UpgradeOrder)
		}
		if r.Selector != nil {
			if _, err := metav1.LabelSelectorAsSelector(r.Selector); err != nil {
				add(rf+".selector", "invalid label selector: %v", err)
			}
		}
		r.validateCriteria(rf, add)
	}
}

// validateWindows checks the app's rollout windows (field is apps[1]).
func (a *App) validateWindows(field string, add func(field, format string, args ...any)) {
	for j, w := range a.Windows {
		wf := fmt.Sprintf("%s.windows[%d]", field, j)
		if w.Kind != "allow" && w.Kind != "deny" {
			add(wf+".kind", "must be allow or deny, got %q", w.Kind)
		}
		if _, err := cronParser.Parse(w.Cron); err != nil {
			add(wf+".cron", "invalid cron expression %q: %v; %s", w.Cron, err, cronHint)
		}
		if w.Duration.Duration == 0 {
			add(wf+".duration", "required: how long the window lasts after each time cron fires, such as 2h or 30m")
		} else if w.Duration.Duration < 0 {
			add(wf+".duration", "must be positive, got %s: write how long the window lasts, such as 2h or 30m", w.Duration.Duration)
		}
		if _, err := time.LoadLocation(w.TimeZone); err != nil {
			add(wf+".timeZone", "unknown time zone %q", w.TimeZone)
		}
	}
}

// validateCriteria checks a role's kinds, names and paths (field is
// apps[1].roles[0]).
func (r Role) validateCriteria(field string, add func(field, format string, args ...any)) {
	for k, values := range r.Annotations {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			add(field+".annotations", "%q is not an annotation key: %s", k, strings.Join(msgs, "; "))
		}
		if len(values) == 0 {
			add(field+".annotations", "%s lists no value: list the values that claim an object (\"\" for an object without the annotation)", k)
		}
	}
	for k, kind := range r.Kinds {
		if !kindRE.MatchString(kind) {
			add(fmt.Sprintf("%s.kinds[%d]", field, k), "%q is not a kind: name one such as StatefulSet (no group, no wildcard)", kind)
		}
	}
	for k, p := range r.Names {
		nf := fmt.Sprintf("%s.names[%d]", field, k)
		_, err := path.Match(p, "")
		switch {
		case p == "":
			add(nf, "empty: give a name or a shell pattern such as postgres-*")
		case err != nil:
			add(nf, "invalid pattern %q: %v; use shell patterns (*, ?, [a-z], \\ to escape) as Go's path.Match takes them", p, err)
		case strings.Count(p, "/") > 1:
			add(nf, "%q has more than one \"/\": write a name pattern (postgres-*) or namespace/name (data/postgres-*)", p)
		}
	}
	for k, p := range r.Paths {
		if msg := model.CheckRepoPath(p); msg != "" {
			add(fmt.Sprintf("%s.paths[%d]", field, k), "%q %s", p, msg)
		}
	}
}

// NotActedOn lists the fields that are set but that this version of the
// agent does not act on yet, so the command can warn about them.
func (c *Config) NotActedOn() []string {
	var out []string
	return out
}

// validBranchName applies the parts of git's ref-name rules that matter
// for a branch named in a config file.
func validBranchName(b string) bool {
	if b == "" || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") || strings.HasSuffix(b, "/") ||
		strings.HasSuffix(b, ".lock") || strings.HasSuffix(b, ".") || strings.Contains(b, "..") ||
		strings.Contains(b, "//") || strings.Contains(b, "@{") {
		return false
	}
	for _, r := range b {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	return true
}

// cronHint says how to write a cron expression.
const cronHint = `write five fields "minute hour day-of-month month day-of-week", such as "0 3 * * *" (03:00 every day) or "0 9 * * 1-5" (09:00 on weekdays), or a descriptor such as @hourly`

// suggestLabel returns ": write NAME" with name made a DNS label, when
// that is possible.
func suggestLabel(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	if len(s) > 63 {
		s = strings.Trim(s[:63], "-")
	}
	if s == "" || len(validation.IsDNS1123Label(s)) > 0 {
		return ""
	}
	return fmt.Sprintf(": write %q", s)
}

var kindRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)

// validateDestinations checks allowedNamespaces and allowedKinds of an
// app or of the defaults (field is apps[1] or defaults).
func validateDestinations(field string, namespaces []string, kinds []AllowedKind, add func(field, format string, args ...any)) {
	for i, ns := range namespaces {
		name, glob := strings.CutSuffix(ns, "*")
		if glob && name == "" {
			continue // "*": every namespace
		}
		if glob {
			name += "a" // a prefix is valid when some name starts with it
		}
		if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 || strings.Contains(strings.TrimSuffix(ns, "*"), "*") {
			add(fmt.Sprintf("%s.allowedNamespaces[%d]", field, i), "%q is not a namespace name, a prefix followed by \"*\", or \"*\"", ns)
		}
	}
	for i, k := range kinds {
		kf := fmt.Sprintf("%s.allowedKinds[%d]", field, i)
		if k.Kind != "*" && !kindRE.MatchString(k.Kind) {
			add(kf+".kind", "%q is not a kind: name one such as ConfigMap, or \"*\" for every kind of the group", k.Kind)
		}
		if k.Group == "*" {
			add(kf+".group", "must name an API group (\"\" is the core group); \"*\" is only allowed as kind")
		} else if k.Group != "" {
			if g, _, versioned := strings.Cut(k.Group, "/"); versioned && len(validation.IsDNS1123Subdomain(g)) == 0 {
				add(kf+".group", "%q is not an API group: it has a version; write the group alone, %q (the core group of v1 is \"\")", k.Group, g)
			} else if k.Group == "v1" {
				add(kf+".group", "\"v1\" is a version, not an API group: the core group is \"\" (leave group out)")
			} else if msgs := validation.IsDNS1123Subdomain(k.Group); len(msgs) > 0 {
				add(kf+".group", "%q is not an API group: %s; write a group such as apps or batch, or \"\" for the core group", k.Group, strings.Join(msgs, "; "))
			}
		}
	}
}

package config

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The sharding modes (sharding.mode).
const (
	// ShardingLeader (the default): one replica works at a time, the
	// holder of a leader-election Lease (roleout run --leader-elect);
	// without that flag the agent runs alone.
	ShardingLeader = "leader"
	// ShardingDynamic: the apps are spread over the live replicas by
	// Leases, and move when a replica joins or dies (package sharding).
	ShardingDynamic = "dynamic"
	// ShardingStatic: each replica serves the fixed share roleout run
	// --shard i/n names.
	ShardingStatic = "static"
)

// Sharding chooses how several replicas of the agent share the apps.
type Sharding struct {
	// Mode is leader (default), dynamic or static.
	Mode string `json:"mode,omitempty"`
	// Name names the replicas that share this configuration's apps under
	// dynamic sharding: every Lease they keep in the agent's namespace is
	// named <name>-member-<identity> or <name>-app-<app>. Default roleout;
	// two agent configurations in one namespace need a name each.
	Name string `json:"name,omitempty"`
}

// validate checks the mode and the name.
func (s Sharding) validate(add func(field, format string, args ...any)) {
	switch s.Mode {
	case "", ShardingLeader, ShardingDynamic, ShardingStatic:
	default:
		add("sharding.mode", "must be %s, %s or %s, got %q", ShardingLeader, ShardingDynamic, ShardingStatic, s.Mode)
	}
	if s.Name != "" && (len(s.Name) > 40 || len(validation.IsDNS1123Label(s.Name)) > 0) {
		add("sharding.name", "must be a DNS label of at most 40 characters (lower case letters, digits and '-'), got %q", s.Name)
	}
}

// ModeOrDefault returns the mode, leader when unset.
func (s Sharding) ModeOrDefault() string {
	if s.Mode == "" {
		return ShardingLeader
	}
	return s.Mode
}

// Shard keeps only the apps of shard i of n, by a stable hash of the app
// name, so n agents split the apps between them.
func (c *Config) Shard(i, n int) error {
	if n < 1 || i < 0 || i >= n {
		return fmt.Errorf("invalid shard %d/%d: want i/n with 0 <= i < n", i, n)
	}
	var kept []App
	for _, a := range c.Apps {
		h := fnv.New32a()
		h.Write([]byte(a.Name))
		if int(h.Sum32()%uint32(n)) == i {
			kept = append(kept, a)
		}
	}
	c.Apps = kept
	return nil
}

// ParseShard parses "i/n".
func ParseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("invalid --shard %q: want i/n, such as 0/3", s)
	}
	return i, n, nil
}

package config

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

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

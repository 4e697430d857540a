package testcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// AdminUser is the user of the static admin token, a member of
	// system:masters.
	AdminUser = "roleout-admin"
	// serviceCIDR is the Service IP range; serviceIP its first address,
	// the kubernetes.default Service.
	serviceCIDR = "10.96.0.0/16"
	serviceIP   = "10.96.0.1"
)

// Options configures a local control plane.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kube-controller-manager,
	// kube-scheduler, kwok and kwok-stages/. Empty: $ROLEOUT_CLUSTER_BIN,
	// then bin/ at the root of the roleout module.
	BinDir string
	// Dir is where certificates, data and logs go. Empty: a new temporary
	// directory, removed by Stop.
	Dir string
	// Nodes is the number of kwok fake nodes.
	Nodes int
	// StartTimeout bounds Start, from the first process to all nodes Ready.
	StartTimeout time.Duration
	// Detached starts the processes in their own sessions so that they
	// outlive the starting program (make cluster-up). When false, they are
	// killed when the starting program dies.
	Detached bool
}

// DefaultOptions returns the options tests use: two fake nodes and a
// two-minute start timeout.
func DefaultOptions() Options {
	return Options{Nodes: 2, StartTimeout: 2 * time.Minute}
}

// Cluster is a running local control plane.
type Cluster struct {
	// Config reaches the API server as the admin user.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file for Config.
	Kubeconfig string
	// Dir holds certificates, data and the components' logs.
	Dir string
	// StartDuration is how long Start took, from the first process to
	// every node Ready.
	StartDuration time.Duration

	opts     Options
	ownDir   bool
	launcher *launcher
	stopOnce sync.Once
	// mu guards components: tests running in parallel start
	// controllers while others print the log tails.
	mu         sync.Mutex
	components []*component
}

// comps returns the components, in start order.
func (c *Cluster) comps() []*component {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.components)
}

// addComponent records a started component.
func (c *Cluster) addComponent(comp *component) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.components = append(c.components, comp)
}

// Start starts etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok, creates opts.Nodes fake nodes and waits until
// they are Ready and the default ServiceAccount exists. On error every
// process already started is stopped.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	began := time.Now()
	if opts.StartTimeout == 0 {
		opts.StartTimeout = DefaultOptions().StartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	bin, err := findBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	opts.BinDir = bin
	c := &Cluster{opts: opts, Dir: opts.Dir, launcher: newLauncher()}
	if c.Dir == "" {
		sweepStaleDirs()
		if c.Dir, err = os.MkdirTemp("", tempPrefix); err != nil {
			return nil, err
		}
		c.ownDir = true
	} else if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	if err := c.start(ctx); err != nil {
		logs := c.LogTails(30)
		c.Stop()
		return nil, fmt.Errorf("start local control plane: %w\n%s", err, logs)
	}
	c.StartDuration = time.Since(began)
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	p, err := newPKI(c.Dir)
	if err != nil {
		return err
	}
	ports, err := freePorts(4)
	if err != nil {
		return err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	if err := c.run("etcd", etcdArgs(c.Dir, etcdURL, ports[1])); err != nil {
		return err
	}
	apiPort := ports[2]
	audit, err := writeAuditPolicy(c.Dir)
	if err != nil {
		return err
	}
	if err := c.run("kube-apiserver", append(apiserverArgs(c.Dir, p, etcdURL, apiPort), audit...)); err != nil {
		return err
	}
	c.Config = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(apiPort),
		BearerToken:     p.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: p.caPEM},
		QPS:             200,
		Burst:           400,
	}
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	if err := writeKubeconfig(c.Kubeconfig, c.Config); err != nil {
		return err
	}
	if err := waitAPIServer(ctx, c.Config, c.exitedComponent); err != nil {
		return err
	}
	if err := c.run("kube-controller-manager", controllerManagerArgs(c.Kubeconfig, p)); err != nil {
		return err
	}
	if err := c.run("kube-scheduler", schedulerArgs(c.Kubeconfig)); err != nil {
		return err
	}
	stages, err := stageFiles(c.opts.BinDir)
	if err != nil {
		return err
	}
	if err := c.run("kwok", kwokArgs(c.Kubeconfig, stages, ports[3])); err != nil {
		return err
	}
	if err := createNodes(ctx, c.Config, c.opts.Nodes); err != nil {
		return err
	}
	return waitReady(ctx, c.Config, c.opts.Nodes, c.exitedComponent)
}

func (c *Cluster) run(name string, args []string) error {
	comp, err := startComponent(c.launcher, c.Dir, name, filepath.Join(c.opts.BinDir, name), args, c.opts.Detached)
	if err != nil {
		return err
	}
	c.addComponent(comp)
	return nil
}

// RunController starts bin/<name> (say lws-controller) with args and extra
// environment as a component of the cluster: its log is kept with the
// others and Stop stops it. The binary must be in the cluster's BinDir.
func (c *Cluster) RunController(name string, args []string, env ...string) error {
	comp, err := startComponent(c.launcher, c.Dir, name, filepath.Join(c.opts.BinDir, name), args, c.opts.Detached, env...)
	if err != nil {
		return err
	}
	c.addComponent(comp)
	return nil
}

// StopComponent stops one component (etcd, kube-apiserver, …) and waits
// until it is gone, for fault tests; StartComponent starts it again with
// the same arguments (and so the same port and data).
func (c *Cluster) StopComponent(name string) error {
	comp := c.component(name)
	if comp == nil {
		return fmt.Errorf("no component %s", name)
	}
	comp.stop(10 * time.Second)
	return nil
}

// StartComponent starts a component StopComponent stopped.
func (c *Cluster) StartComponent(name string) error {
	comp := c.component(name)
	if comp == nil {
		return fmt.Errorf("no component %s", name)
	}
	if comp.running() {
		return fmt.Errorf("%s is running", name)
	}
	next, err := startComponent(c.launcher, c.Dir, comp.name, comp.bin, comp.args, c.opts.Detached, comp.env...)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.components {
		if c.components[i] == comp {
			c.components[i] = next
		}
	}
	return nil
}

func (c *Cluster) component(name string) *component {
	for _, comp := range c.comps() {
		if comp.name == name {
			return comp
		}
	}
	return nil
}

// BinDir returns the directory of the control-plane binaries, which also
// holds the CRDs of the extra controllers (crds/).
func (c *Cluster) BinDir() string { return c.opts.BinDir }

// exitedComponent returns an error naming the first component that has
// exited, so waits fail fast instead of running into their timeout.
func (c *Cluster) exitedComponent() error {
	for _, comp := range c.comps() {
		if !comp.running() {
			return fmt.Errorf("%s exited early (%v); see %s", comp.name, comp.waitErr, comp.logPath)
		}
	}
	return nil
}

// PIDs returns the process IDs of the running components by name. Each is
// also the ID of the component's process group.
func (c *Cluster) PIDs() map[string]int {
	comps := c.comps()
	out := make(map[string]int, len(comps))
	for _, comp := range comps {
		out[comp.name] = comp.pid()
	}
	return out
}

// Stop stops every component in reverse start order, waits for their
// process groups to be gone and removes the cluster's directory if Start
// created it. It is safe to call more than once.
func (c *Cluster) Stop() {
	c.stopOnce.Do(func() {
		comps := c.comps()
		for i := len(comps) - 1; i >= 0; i-- {
			comps[i].stop(10 * time.Second)
		}
		c.launcher.close()
		if c.ownDir {
			_ = os.RemoveAll(c.Dir)
		}
	})
}

// LogTails returns the last n lines of every component's log, each under
// a header naming the component and its log file.
func (c *Cluster) LogTails(n int) string {
	var b strings.Builder
	for _, comp := range c.comps() {
		fmt.Fprintf(&b, "----- %s (%s) -----\n%s\n", comp.name, comp.logPath, tailFile(comp.logPath, n))
	}
	return b.String()
}

// freePorts reserves n distinct free loopback ports. They are released
// before use, so another process could take one; on loopback in a test
// sandbox that race is rare enough.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("reserve a loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func writeKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["roleout-local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[AdminUser] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["roleout-local"] = &clientcmdapi.Context{Cluster: "roleout-local", AuthInfo: AdminUser}
	kc.CurrentContext = "roleout-local"
	return clientcmd.WriteToFile(*kc, path)
}

// findBinDir returns the directory holding the control-plane binaries.
func findBinDir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("ROLEOUT_CLUSTER_BIN")
	}
	if dir == "" {
		root, err := ModuleRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "bin")
	}
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("control-plane binary %s not found in %s: run `make cluster-bins` first", name, dir)
		}
	}
	return dir, nil
}

// ModuleRoot returns the root directory of the roleout module, found by
// walking up from the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/roleout/roleout\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("roleout module root not found above the working directory")
		}
		dir = parent
	}
}

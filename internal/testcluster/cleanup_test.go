package testcluster

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const helperEnv = "ROLEOUT_TESTCLUSTER_ORPHAN_HELPER"

func TestStopLeavesNoProcess(t *testing.T) {
	Require(t, cluster)
	opts := DefaultOptions()
	opts.Nodes = 1
	c, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second control plane ready in %s", c.StartDuration)
	pids := c.PIDs()
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"} {
		if pids[name] == 0 || !GroupAlive(pids[name]) {
			t.Fatalf("%s not running before Stop (pids %v)", name, pids)
		}
	}
	dir := c.Dir
	c.Stop()
	for name, pid := range pids {
		if GroupAlive(pid) {
			t.Errorf("%s (process group %d) still running after Stop", name, pid)
		}
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
			t.Errorf("%s (pid %d) still in /proc after Stop", name, pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s not removed: %v", dir, err)
	}
}

// TestChildrenDieWithTestBinary starts a helper copy of this test binary
// that launches etcd the way Start launches every component, kills the
// helper with SIGKILL (as a test timeout or a CI runner would) and checks
// that etcd died with it.
func TestChildrenDieWithTestBinary(t *testing.T) {
	Require(t, cluster)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("helper printed no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || !GroupAlive(pid) {
		_ = cmd.Process.Kill()
		t.Fatalf("helper's etcd not running: %q %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGroupGone(pid, 10*time.Second)
	if GroupAlive(pid) {
		stopGroup(pid, time.Second, nil)
		t.Fatalf("etcd (process group %d) outlived the killed test binary", pid)
	}
}

// runOrphanHelper is the helper process of TestChildrenDieWithTestBinary.
func runOrphanHelper() int {
	dir := os.Getenv(helperEnv)
	bin, err := findBinDir("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ports, err := freePorts(2)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	url := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	c, err := startComponent(newLauncher(), dir, "etcd", filepath.Join(bin, "etcd"), etcdArgs(dir, url, ports[1]), false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(c.pid())
	select {}
}

func TestRestartComponent(t *testing.T) {
	c := Require(t, cluster)
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.StopComponent("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err == nil {
		t.Fatal("the API server answered while stopped")
	}
	if err := c.StartComponent("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the API server back", func() (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	})
}

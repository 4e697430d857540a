package testcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

func etcdArgs(dir, clientURL string, peerPort int) []string {
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	return []string{
		"--name=default",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=default=" + peerURL,
		// Test data is thrown away: skip fsync, which is most of etcd's
		// latency on a shared disk.
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
}

func apiserverArgs(dir string, p *pki, etcdURL string, port int) []string {
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + p.servingCert,
		"--tls-private-key-file=" + p.servingKey,
		"--token-auth-file=" + p.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saPub,
		"--service-account-signing-key-file=" + p.saKey,
		"--service-cluster-ip-range=" + serviceCIDR,
		// No kubelet answers for the loopback address, and nothing but this
		// process serves the API: keep the kubernetes Service endpoints
		// out of it.
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
		"--profiling=false",
		"--v=1",
	}
}

func controllerManagerArgs(kubeconfig string, p *pki) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--service-account-private-key-file=" + p.saKey,
		"--root-ca-file=" + p.caCert,
		"--use-service-account-credentials=false",
		"--profiling=false",
		"--v=1",
	}
}

func schedulerArgs(kubeconfig string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--profiling=false",
		"--v=1",
	}
}

func kwokArgs(kubeconfig string, stages []string, serverPort int) []string {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		"--node-lease-duration-seconds=40",
		"--cidr=10.64.0.0/12",
		"--node-ip=10.63.0.1",
		"--server-address=127.0.0.1:" + strconv.Itoa(serverPort),
	}
	for _, s := range stages {
		args = append(args, "--config="+s)
	}
	return args
}

// stageFiles lists the kwok Stage files that `make cluster-bins` copied
// from the kwok module (kustomize/stage/node/fast,
// node/heartbeat-with-lease and pod/fast) into bin/kwok-stages.
func stageFiles(binDir string) ([]string, error) {
	dir := filepath.Join(binDir, "kwok-stages")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read kwok stages: %w (run `make cluster-bins`)", err)
	}
	var out []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".yaml" {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no kwok Stage files in %s: run `make cluster-bins`", dir)
	}
	sort.Strings(out)
	return out, nil
}

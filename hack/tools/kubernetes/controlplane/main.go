// Command controlplane is kube-apiserver, kube-controller-manager and
// kube-scheduler in one binary, chosen by the name it is run as (as
// hyperkube and k3s do): bin/kube-apiserver and the others are links to
// it. Linking Kubernetes once instead of three times saves the local
// control plane's build two links and two thirds of its disk.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	_ "time/tzdata" // for time zone support in CronJob

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // load all the prometheus client-go plugins
	_ "k8s.io/component-base/metrics/prometheus/version"  // for version metric registration
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// commands are the components, by the name they are run as.
var commands = map[string]func() *cobra.Command{
	"kube-apiserver":          apiserver.NewAPIServerCommand,
	"kube-controller-manager": controllermanager.NewControllerManagerCommand,
	"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
}

func main() {
	name := filepath.Base(os.Args[0])
	newCommand, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "controlplane: run as kube-apiserver, kube-controller-manager or kube-scheduler (a link named so), not %q\n", name)
		os.Exit(2)
	}
	os.Exit(cli.Run(newCommand()))
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/spf13/cobra"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
)

// controlOptions are the flags of `roleout suspend`, `resume` and
// `reconcile`.
type controlOptions struct {
	config    string
	app       string
	namespace string
}

// controlAction is what one of the commands does to the control
// ConfigMap, and what it then says.
type controlAction struct {
	use, short, long string
	do               func(ctx context.Context, kube kubernetes.Interface, ns, app string) (control.App, error)
	say              func(c control.App) string
}

// newControlCommands returns roleout suspend, resume and reconcile.
func newControlCommands(global *globalOptions) []*cobra.Command {
	return []*cobra.Command{
		newControlCommand(global, controlAction{
			use:   "suspend --config F --app A",
			short: "Stop an app's rollouts and drift healing, on every replica, until roleout resume",
			long: `suspend records in the ConfigMap roleout-control, in the agent's namespace on
its cluster (not in git), that the app is suspended, by whom and when. The
running agents see it at once: they apply and heal nothing of the app, a
rollout under way stops after its current wave, and the app's status
becomes Suspended. roleout run --once reads it too.`,
			do: func(ctx context.Context, kube kubernetes.Interface, ns, app string) (control.App, error) {
				return control.Suspend(ctx, kube, ns, app, whoAmI(ctx, kube), time.Now())
			},
			say: func(c control.App) string {
				return fmt.Sprintf("app %s %s: nothing is applied or healed until roleout resume", c.App, c.Why())
			},
		}),
		newControlCommand(global, controlAction{
			use:   "resume --config F --app A",
			short: "Lift roleout suspend: the agents poll now and roll out what waits",
			long: `resume ends what holds the app in the ConfigMap roleout-control, one thing
at a time: its suspension when it is suspended, else the hold of a rollback
(roleout rollback), after which git's version of the role is rolled out
again. The running agents poll at once and roll out what was held back.`,
			do: control.Resume,
			say: func(c control.App) string {
				switch c.Lifted {
				case "suspension":
					s := fmt.Sprintf("app %s resumed: the running agent polls now", c.App)
					if c.Rollback != nil {
						s += fmt.Sprintf("; its rollback of role %s stays (resume again to end it)", c.Rollback.Role)
					}
					return s
				case "rollback":
					return fmt.Sprintf("app %s: rollback hold ended; the running agent rolls git's version out again", c.App)
				}
				return fmt.Sprintf("app %s: neither suspended nor held by a rollback; nothing to resume", c.App)
			},
		}),
		newControlCommand(global, controlAction{
			use:   "reconcile --config F --app A",
			short: "Make the running agents poll now and plan the app again",
			long: `reconcile records a request time for the app in the ConfigMap
roleout-control. The running agents poll the source at once, whatever
their schedule, and plan the app again even at a revision they already
reconciled. It returns once the request is recorded, not when the
rollout ends.`,
			do: func(ctx context.Context, kube kubernetes.Interface, ns, app string) (control.App, error) {
				return control.RequestReconcile(ctx, kube, ns, app, time.Now())
			},
			say: func(c control.App) string {
				s := fmt.Sprintf("reconcile of app %s requested at %s: the running agent polls now", c.App, c.RequestedAt)
				if c.Suspended {
					s += fmt.Sprintf("; the app is %s, so nothing is applied until roleout resume", c.Why())
				}
				return s
			},
		}),
	}
}

// newControlCommand returns the command of action.
func newControlCommand(global *globalOptions, action controlAction) *cobra.Command {
	o := &controlOptions{}
	cmd := &cobra.Command{
		Use:   action.use,
		Short: action.short,
		Long: action.long + `

The agent's namespace is status.clusterRevisions.namespace, else the
namespace the command runs in (in a pod), else default; --namespace
overrides it. The command needs get and update on that ConfigMap, and
create the first time. With --output json it prints one object: app,
suspended, suspendedBy and suspendedAt (while suspended), requestedAt (the
last reconcile request), rollback (the rollback request: role, toRevision,
requestedAt, requestedBy) and, from resume, lifted (suspension, rollback
or nothing).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(o.config)
			if err != nil {
				return err
			}
			if _, err := cfg.App(o.app); err != nil {
				return err
			}
			restCfg, err := clusterConfig(cfg.Kubeconfig)
			if err != nil {
				return err
			}
			restCfg.UserAgent = "roleout/" + version
			kube, err := kubernetes.NewForConfig(restCfg)
			if err != nil {
				return err
			}
			ns := o.namespace
			if ns == "" {
				ns = control.Namespace(cfg)
			}
			c, err := action.do(cmd.Context(), kube, ns, o.app)
			if err != nil {
				return err
			}
			if global.output == "json" {
				return writeJSON(cmd.OutOrStdout(), c)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s (ConfigMap %s/%s)\n", action.say(c), ns, control.ConfigMapName)
			return err
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().StringVar(&o.app, "app", "", "app (required)")
	cmd.Flags().StringVar(&o.namespace, "namespace", "", "the agent's namespace, which holds ConfigMap roleout-control (default: status.clusterRevisions.namespace, else the pod's, else default)")
	for _, f := range []string{"config", "app"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// whoAmI names the user the cluster knows this command as
// (SelfSubjectReview), else the local user at this host; "" when neither
// is known.
func whoAmI(ctx context.Context, kube kubernetes.Interface) string {
	r, err := kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err == nil && r.Status.UserInfo.Username != "" {
		return r.Status.UserInfo.Username
	}
	u, err := user.Current()
	if err != nil {
		return ""
	}
	if host, err := os.Hostname(); err == nil {
		return u.Username + "@" + host
	}
	return u.Username
}

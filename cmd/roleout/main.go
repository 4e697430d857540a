// Command roleout is the roleout CLI and agent. It is the only place that
// parses flags, sets up logging and exits the process.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

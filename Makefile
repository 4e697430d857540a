# roleout — see README.md. `make run` is the demo, `make test` runs every test.

GO        ?= go
BIN       := bin
CLUSTER   := .cluster
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --verify -q HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
TEST_FLAGS ?= -race -count=1 -parallel 4 -timeout 45m
FAULT_FLAGS ?=
# The tests run the roleout binary make build built (internal/testcluster.RoleoutBinary).
ROLEOUT_TEST_ENV := ROLEOUT_BINARY=$(abspath $(BIN))/roleout
IMAGE     ?= roleout:$(VERSION)

.PHONY: all build build-sops predictors test-versions test test-race test-fuzz test-kustomize kustomize-patch kustomize-patch-write test-bench-ui test-unit test-faults bench bench-ui run run-check fuzz cluster-bins cluster-bins-core cluster-up cluster-down lint docker clean

all: build

## build: build bin/roleout
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/roleout ./cmd/roleout

## build-sops: build bin/sops, the sops program of the SOPS Go module roleout links (go.mod's tool), which tests encrypt Secrets with
build-sops:
	$(GO) build -o $(BIN)/sops github.com/getsops/sops/v3/cmd/sops

# The Kubernetes releases whose prediction helpers make predictors builds: each minor roleout does not link
# (render/kubeminor), and the linked release itself, which the tests hold equal to the code roleout links.
KUBE_PREDICT_VERSIONS ?= v1.33.13 v1.34.4 v1.36.3 v1.37.2

## predictors: build the prediction helpers of other Kubernetes minors into bin/predictors (bin/predictors/kubernetes-1.36 …:
## roleout predicts a cluster of that minor with that minor's own code); each is kept in the user's cache once built
predictors:
	$(GO) run ./hack/kubepredict -out $(BIN)/predictors $(KUBE_PREDICT_VERSIONS)

# The other Kubernetes minors make test-versions runs a control plane of (hack/tools/kubernetes/go.<minor>.mod each).
KUBE_TEST_MINORS ?= 1.33 1.34 1.36

## test-versions: roleout's predictions for each other Kubernetes minor it models, held equal to that minor's own
## kube-controller-manager: a control plane of the minor (bin/k8s-<minor>, about 6 minutes to build the first time),
## random workloads planned offline with its helper (bin/predictors), applied, observed. make test runs it last.
test-versions: build predictors cluster-bins
	@set -e; for m in $(KUBE_TEST_MINORS); do \
		hack/cluster-bins-minor.sh $$m; \
		ROLEOUT_CLUSTER_BIN=$(abspath $(BIN))/k8s-$$m $(ROLEOUT_TEST_ENV) $(GO) test -count=1 -run '^TestRandomWorkloadsMatchControllers$$' ./apply; \
	done

## cluster-bins: build the local control plane and the test-only tools (kubectl, the lws and aibrix controllers) into bin/ (only what is missing or stale)
cluster-bins:
	@hack/cluster-bins.sh all

## cluster-bins-core: build only what the demo needs into bin/ (etcd, one kube-control-plane binary for the three components, kwok)
cluster-bins-core:
	@hack/cluster-bins.sh core

## test: every test, unit and end to end, against the local control plane and git server, then short fuzz runs
## (1,000 inputs per target: a count, because Go 1.26's fuzzing coordinator can fail a run that races its own -fuzztime deadline).
## The race-detector suite, the fault suite (each against a control plane of its own) and the fuzz runs with the proof of
## roleout's kustomize patch go side by side; then the predictions for the other Kubernetes minors (test-versions).
test:
	@hack/ensure-test-tools.sh
	@$(MAKE) --no-print-directory -j3 test-race test-faults test-fuzz
	@$(MAKE) --no-print-directory test-versions

test-fuzz:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=1000x
	@$(MAKE) --no-print-directory test-kustomize
	@$(MAKE) --no-print-directory test-bench-ui

## test-bench-ui: the web view's benchmarks once each, so that make bench-ui keeps working
test-bench-ui:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./ui

## test-kustomize: the release with third_party/kustomize-api.patch applied is the tree roleout builds, byte for byte;
## then kustomize's own test suite on the release and on roleout's patched copy (third_party/kustomize-api/ROLEOUT.md), test by test
test-kustomize:
	$(GO) run ./hack/kustomizeproof

KUSTOMIZE_VERSION ?= $(shell $(GO) list -m -f '{{.Version}}' sigs.k8s.io/kustomize/api)

## kustomize-patch: apply roleout's kustomize patch to release KUSTOMIZE_VERSION into out/kustomize-api-KUSTOMIZE_VERSION,
## naming each hunk that does not apply (the first step of a move to a new release; third_party/kustomize-api/ROLEOUT.md)
kustomize-patch:
	rm -rf out/kustomize-api-$(KUSTOMIZE_VERSION)
	$(GO) run ./hack/kustomizeproof -apply $(KUSTOMIZE_VERSION) -into out/kustomize-api-$(KUSTOMIZE_VERSION)

## kustomize-patch-write: write third_party/kustomize-api.patch from the release go.mod requires and the tree
kustomize-patch-write:
	$(GO) run ./hack/kustomizeproof -write-patch

## test-race: every test but the fault suite, with the race detector
test-race: build build-sops cluster-bins predictors
	$(ROLEOUT_TEST_ENV) $(GO) test $(TEST_FLAGS) ./...

## test-faults: the fault suite (also part of make test): SIGKILLs, API server and etcd restarts, git server down, a flaky network.
## It drives bin/roleout as a process, so it runs without the race detector (FAULT_FLAGS=-v to follow it)
test-faults: build build-sops cluster-bins
	$(ROLEOUT_TEST_ENV) $(GO) test -tags faults -count=1 -timeout 30m -run '^TestFault' $(FAULT_FLAGS) ./cmd/roleout

FUZZTIME ?= 2m
FUZZ_TARGETS := config:FuzzParse status:FuzzParseApp render/plan:FuzzNewPlan render/plan:FuzzRoleAnnotations

## fuzz: run every fuzz target for FUZZTIME (default 2m; make test runs 1000x, a count of inputs, each)
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) ./$$pkg; \
	done

## test-unit: the tests that need no control plane (-short skips the rest)
test-unit:
	$(GO) test -short -count=1 ./...

## bench: roleout vs kubectl, Flux's ssa engine and raw SSA, drift heal times and watch memory, on the local control plane
## (docs/benchmarks.md); BENCH_PAIRS=N rounds (default 5), BENCH_FLAGS='-only 10,11' some scenarios
bench: cluster-bins bench-ui
	$(GO) run ./hack/bench/roleoutbench $(BENCH_FLAGS)

## bench-ui: the web view's pages at 1,000 apps and a 4,000-object app (Go benchmarks, server time and page weight)
bench-ui:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./ui

## run: the demo: a local control plane, examples/llm-serving in a local git repository, two real rollouts
run: build cluster-bins-core
	$(GO) run ./hack/demo -dir $(CLUSTER) -roleout $(BIN)/roleout

## run-check: the demo, non-interactive: checks its own outcome and stops everything (CI runs it in make test too)
run-check: build cluster-bins-core
	$(GO) run ./hack/demo -dir $(CLUSTER)-check -roleout $(BIN)/roleout -check -teardown

## cluster-up: start the local control plane in the background; prints the kubeconfig path
cluster-up: cluster-bins
	$(GO) run ./hack/localcluster up -dir $(CLUSTER)

## cluster-down: stop the local control plane started by cluster-up
cluster-down:
	$(GO) run ./hack/localcluster down -dir $(CLUSTER)

## lint: gofmt, go vet and govulncheck (against the vulnerability database the Go module proxy serves; hack/govulncheck.sh)
lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags faults ./cmd/roleout
	@hack/govulncheck.sh

## docker: build the roleout image (needs a Docker engine)
docker:
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t $(IMAGE) .

clean:
	rm -rf $(BIN) $(CLUSTER)

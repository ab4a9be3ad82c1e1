# The project's commands. The README shows the two a newcomer needs:
#   ./scripts/setup.sh && go run ./cmd/invmmd all    (set up, then regenerate figures/)
#   make test                                         (every test, notebooks included)
#   make test-short                                   (the edit loop: vet and go test -short)

SHELL := /bin/bash

.PHONY: setup figures quick test test-short test-go test-notebooks test-slurm test-docker pages bench

# Install Jupyter, GoNB and goimports, register the kernel, fetch the data.
setup:
	./scripts/setup.sh

# The main job: every experiment at the paper's size on the default (pure-Go) backend,
# regenerating the tables and figures under figures/.
figures:
	go run ./cmd/invmmd all

# The same in quick mode (minutes), into a scratch folder.
quick:
	go run ./cmd/invmmd all -quick -out /tmp/invmmd-quick

# Every test: formatting, vet, the Go tests (with the fetched data required), and every
# notebook executed headless, checked and rendered into build/notebooks/ (ignored by git).
# make test must not change the work tree: it fails if the output of git status (tracked
# changes and untracked files) or the diff differs after the suite from before it.
test:
	@before="$$(git status --porcelain --untracked-files=all; git diff | sha256sum)"; \
	$(MAKE) --no-print-directory test-go test-notebooks || exit 1; \
	after="$$(git status --porcelain --untracked-files=all; git diff | sha256sum)"; \
	if [ "$$before" != "$$after" ]; then \
		echo "make test changed the work tree (it must leave it as it was):"; \
		diff <(echo "$$before") <(echo "$$after") || true; exit 1; \
	fi; echo "make test: passed; the work tree is as it was"

# The edit loop: go vet and the Go tests with -short, which skips the long tests (each says
# why) and those that need fetched data (MNIST), and runs no notebook. Under 3 minutes on
# 2 cores from a warm build cache (CONTRIBUTING.md gives the measurement). It does not
# replace make test.
test-short:
	go vet ./...
	go test -short -timeout 10m ./...

test-go:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	INVMMD_REQUIRE_DATA=1 go test -timeout 30m ./...

# The notebooks (executed, checked, rendered and loaded in headless Chromium), then the
# committed pages under docs/notebooks/ in the same browser check.
test-notebooks:
	./scripts/notebooks.sh
	./scripts/pagecheck.sh

# Cluster sweeps for real (root): a one-node Slurm on loopback runs the quick simulation
# as a job array of 4 plus the merge, compared with an unsharded run (scripts/slurm/test.sh).
test-slurm:
	./scripts/slurm/test.sh

# The container image for real: builds docker/Dockerfile unchanged with docker, podman or buildah
# (where no registry is reachable, its golang base is built here from Debian's packages), then
# inside the image runs go test ./invmmd/, notebook 00 and a quick simulation, and serves the
# notebooks where a container can run (scripts/docker/test.sh; docker/README.md).
test-docker:
	./scripts/docker/test.sh

# Regenerate the committed notebook outputs: every notebook executed in quick mode (about five
# minutes on 2 cores), checked, and written back with its outputs to notebooks/ (so that a
# repository browser shows results and figures) and as a standalone page to docs/notebooks/.
pages:
	./scripts/notebooks.sh --pages

# Benchmarks of the penalty and the kernel sums; rewrites BENCHMARKS.md.
bench:
	./scripts/bench.sh $(BENCH) # training steps against PyTorch too; BENCH=peer, penalty, nuisance, test or wide for one

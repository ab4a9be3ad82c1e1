# The project's commands. The README shows the two a newcomer needs:
#   ./scripts/setup.sh && go run ./cmd/invmmd all    (set up, then regenerate figures/)
#   make test                                         (every test, notebooks included)

.PHONY: setup figures quick test test-go test-notebooks bench

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
# notebook executed headless, checked and rendered to docs/notebooks/.
test: test-go test-notebooks

test-go:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	INVMMD_REQUIRE_DATA=1 go test -timeout 30m ./...

test-notebooks:
	./scripts/notebooks.sh

# Benchmarks of the penalty and the kernel sums; rewrites BENCHMARKS.md.
bench:
	./scripts/bench.sh $(BENCH) # training steps against PyTorch too; BENCH=peer or penalty for one

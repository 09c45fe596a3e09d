# limcheck: the reference model of two rate limiters and the tools to check
# implementations against it. `make test` is what CI runs.

GO        ?= go
PKGS      := ./...
RAPIDCHECKS ?= 10000

.PHONY: test fmtcheck vet purity speccheck clauses gotest walk proptest fmt help

help:
	@echo "make test       everything CI runs: gofmt check, vet, purity, clause check, go test -race, limcheck"
	@echo "make proptest   the rapid properties at -rapid.checks=$(RAPIDCHECKS)"
	@echo "make speccheck  the clause check with its coverage report"
	@echo "make fmt        gofmt -w the tree"

test: fmtcheck vet purity clauses gotest walk

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# The model's purity rule (spec: no package-level mutable state, goroutines,
# locks, wall clock or randomness), as a go/analysis analyzer.
purity:
	$(GO) run ./internal/cmd/puritycheck ./model/...

# Every clause of spec.md cited by the model and exercised by a test; every
# cited ID defined. speccheck prints the clause coverage table; clauses (in
# make test) prints only problems.
speccheck:
	$(GO) run ./internal/cmd/speccheck .

clauses:
	@$(GO) run ./internal/cmd/speccheck . >/dev/null && echo "speccheck: every clause cited and tested"

gotest:
	$(GO) test -race -count=1 $(PKGS)

# The README's main command, as a smoke run.
walk:
	$(GO) run ./cmd/limcheck -q

proptest:
	$(GO) test -count=1 -run 'Prop' ./model/... -rapid.checks=$(RAPIDCHECKS)

fmt:
	gofmt -w $$(git ls-files '*.go')

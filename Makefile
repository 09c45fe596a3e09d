# limcheck: the reference model of two rate limiters and the tools to check
# implementations against it. `make test` is what CI runs.

GO        ?= go
PKGS      := ./...
RAPIDCHECKS ?= 10000
FUZZTIME  ?= 60s
FUZZSMOKE ?= 2s
FUZZMINTIME ?= 1s

.PHONY: FORCE test fmtcheck vet purity speccheck clauses gotest walk proptest fmt help fuzz fuzzsmoke vectors vectorcheck vectorcov mutate ports

help:
	@echo "make test       everything CI runs: gofmt check, vet, purity, clause check, go test -race, limcheck"
	@echo "make proptest   the rapid properties at -rapid.checks=$(RAPIDCHECKS)"
	@echo "make speccheck  the clause check with its coverage report"
	@echo "make fmt        gofmt -w the tree"
	@echo "make vectors    regenerate conformance/vectors from the builders and the model"
	@echo "make vectorcheck fail if conformance/vectors differs from a regeneration"
	@echo "make vectorcov  the conformance vectors' coverage of spec.md"
	@echo "make ports      the reference ports (Python, JavaScript, the Go port as a process): unit tests,"
	@echo "                limcheck run and a bounded limcheck fuzz against each"
	@echo "make mutate     mutation testing of impl/ against the oracle suite (gremlins; MUTATION.md)"

test: fmtcheck vet purity clauses vectorcheck gotest walk fuzzsmoke ports

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

# The README's main command (the bundled Go implementation against every
# vector, a short differential fuzz, spec.md's worked example), as a smoke
# run.
walk:
	$(GO) run ./cmd/limcheck

proptest:
	$(GO) test -count=1 -run 'Prop' ./model/... -rapid.checks=$(RAPIDCHECKS)

fmt:
	gofmt -w $$(git ls-files '*.go')

# Every go test -fuzz target of ./fuzz (as go test -list finds them), in
# turn, $(1) each: the model against impl on decoded byte inputs. A new
# interesting input is minimized for at most FUZZMINTIME (go's default, a
# minute, can take a whole run's time).
fuzzrun = targets=$$($(GO) test ./fuzz -list '^Fuzz' | grep '^Fuzz') || exit 1; \
	for t in $$targets; do \
		echo "fuzz $$t ($(1))"; \
		$(GO) test ./fuzz -run '^$$' -fuzz "^$$t$$" -fuzztime $(1) -fuzzminimizetime $(FUZZMINTIME) || exit 1; \
	done

fuzz:
	@$(call fuzzrun,$(FUZZTIME))

# Each fuzz target briefly, in make test: the seed corpus and a few seconds
# of mutation.
fuzzsmoke:
	@$(call fuzzrun,$(FUZZSMOKE))

# The conformance vectors (spec.md VEC-1..VEC-14): vectors rewrites the
# committed folder; vectorcheck regenerates a copy and fails on any
# difference (stale vectors), so CI catches a builder or model change that
# was not regenerated; vectorcov prints the clause x vector table.
VECTORS := conformance/vectors
genvectors = $(GO) run ./conformance/cmd/genvectors -spec spec.md

vectors:
	$(genvectors) -dir $(VECTORS)

vectorcheck:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cp -R $(VECTORS)/. "$$tmp/" && \
	$(genvectors) -dir "$$tmp" >/dev/null && \
	if diff -r $(VECTORS) "$$tmp"; then echo "vectorcheck: $(VECTORS) is current"; \
	else echo "vectorcheck: $(VECTORS) is stale: run make vectors and commit the result"; exit 1; fi

vectorcov:
	$(GO) test -count=1 -run '^TestVectorCoverage$$' -v ./fuzz

# Mutation testing of impl/ (MUTATION.md): gremlins v0.6.0, settings and the
# efficacy threshold in .gremlins.yaml. It runs in a staged copy of the module
# in which only fuzz/ and impl/ keep their _test.go files: integration mode
# runs `go test ./...` per mutant, and no other package's tests execute impl/
# (they cannot kill a mutant, only slow each run down). The JSON report goes
# to $(MUTATE_OUT). LIMCHECK_MUTATE=1 lets fuzz/ skip its tests that do not
# execute impl/ (fuzz/mutate_test.go).
GREMLINS    ?= github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE_OUT  ?= $(CURDIR)/bin/mutation/gremlins.json
# Per mutant go test: no vet (a vet complaint would count as a kill) and no
# symbol tables (faster links; each mutant relinks the fuzz/ test binary).
MUTATE_GOFLAGS ?= -vet=off -ldflags=-s

mutate:
	@stage=$$(mktemp -d) && trap 'rm -rf "$$stage"' EXIT && \
	git ls-files -co --exclude-standard -z | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$$stage" && \
	find "$$stage" -name '*_test.go' ! -path "$$stage/fuzz/*" ! -path "$$stage/impl/*" -delete && \
	mkdir -p "$$(dirname $(MUTATE_OUT))" && \
	start=$$(date +%s) && cd "$$stage" && \
	LIMCHECK_MUTATE=1 GOFLAGS="$(MUTATE_GOFLAGS)" $(GO) run $(GREMLINS) unleash --output $(MUTATE_OUT) $(GREMLINSFLAGS) "$$stage/impl"; \
	rc=$$?; echo "mutate: $$(( $$(date +%s) - start ))s wall, report in $(MUTATE_OUT)"; exit $$rc

# The reference ports (ports/python, ports/js), written from spec.md alone:
# their unit tests, each port's own run of the conformance vectors, then the
# real check: limcheck run (every vector, strict ones too) and a bounded
# limcheck fuzz against each port and against the bundled Go port served
# by `limcheck serve` as a process. The mutants (ports/mutants.json) are
# checked by go test ./cmd/limcheck (TestEveryMutantIsCaughtByRunAndFoundByFuzz).
PYTHON ?= python3
NODE   ?= node
LIMCHECK := bin/limcheck
PORTS  := '$(LIMCHECK) serve' '$(PYTHON) ports/python/driver.py' '$(NODE) ports/js/driver.js'
PORTFUZZOPS ?= 20000

$(LIMCHECK): FORCE
	$(GO) build -o $@ ./cmd/limcheck

FORCE:

ports: $(LIMCHECK)
	$(PYTHON) -m unittest discover -s ports/python/tests
	$(PYTHON) ports/python/run_vectors.py $(VECTORS)
	$(NODE) --test --test-reporter=dot ports/js/test/*.test.js
	$(NODE) ports/js/run_vectors.js $(VECTORS)
	@for p in $(PORTS); do \
		echo "limcheck run --strict -q --port '$$p'"; $(LIMCHECK) run --strict -q --port "$$p" || exit 1; \
		echo "limcheck fuzz --seed 1 --ops $(PORTFUZZOPS) --port '$$p'"; $(LIMCHECK) fuzz --seed 1 --ops $(PORTFUZZOPS) --port "$$p" || exit 1; \
	done

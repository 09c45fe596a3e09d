# limcheck: the reference model of two rate limiters and the tools to check
# implementations against it. `make test` is what CI runs.

GO        ?= go
PKGS      := ./...
# go test without its built-in vet pass: make vet runs go vet over every
# package and its tests with every analyzer, and go test's subset would
# repeat it in each build (race, plain, fuzz-instrumented), computing facts
# for every dependency, the standard library's too: about 50 CPU-seconds of
# a cold make test, for nothing make vet does not already check.
GOTEST    := $(GO) test -vet=off
RAPIDCHECKS ?= 10000
FUZZTIME  ?= 60s
FUZZSMOKE ?= 300x
FUZZMINTIME ?= 100x

.PHONY: FORCE test test-long cli contrib mutants fmtcheck vet tidycheck staticcheck purity speccheck clauses gotest walk proptest fmt help fuzz fuzz-redis fuzzsmoke vectors vectorcheck vectorcov mutate ports

help:
	@echo "make test       everything CI runs, TESTJOBS checks at a time: $(CHECKS);"
	@echo "                it ends with 'make test: N checks passed' or the checks that failed"
	@echo "make test-long  the longer searches: rapid at $(RAPIDCHECKS) checks, $(LINROUNDS) porcupine rounds,"
	@echo "                each fuzz target for $(FUZZTIME) (the Redis ones too), the mutants' wall-clock time to find"
	@echo "make fuzz-redis each Redis fuzz target (fuzz/redis_fuzz_test.go) for FUZZTIME=$(FUZZTIME), a redis-server per worker"
	@echo "make cli        the CLI's plain-build tests: the planted-mutant matrix, the commands and sample outputs"
	@echo "                of the README and docs/, and the scripts not run under -race (make mutants: the matrix alone)"
	@echo "make contrib    the contrib module's tests (the Prometheus and OpenTelemetry adapters, the example server)"
	@echo "make tidycheck  fail if go mod tidy would change go.mod or go.sum, in the root, bench or contrib"
	@echo "make staticcheck staticcheck (pinned by STATICCHECK) over the root, bench and contrib, tests included"
	@echo "make proptest   the rapid properties at -rapid.checks=$(RAPIDCHECKS)"
	@echo "make speccheck  the clause check with its coverage report"
	@echo "make fmt        gofmt -w the tree"
	@echo "make vectors    regenerate conformance/vectors from the builders and the model"
	@echo "make vectorcheck fail if conformance/vectors differs from a regeneration"
	@echo "make vectorcov  the conformance vectors' coverage of spec.md"
	@echo "make ports      the reference ports (Python, JavaScript, the Go port as a process): unit tests,"
	@echo "                limcheck run and a bounded limcheck fuzz against each"
	@echo "make mutate     mutation testing of impl/ against the oracle suite (gremlins; MUTATION.md)"

# The checks of make test, longest first: they run TESTJOBS at a time (the
# tests wait on ports and processes as much as they compute), each one's
# output kept together (--output-sync), and every check runs even after one
# fails (-k), so that one run names every failure. The last line says how
# it went: "make test: N checks passed" or the checks that failed, first
# to fail first. No check depends on the machine's speed: a busy machine
# makes make test slower, never red (LIMCHECK_TEST_SLOWDOWN scales every
# time limit of the tests, for a machine slower than a busy 2-core one).
# Longest first is what keeps the two slots even at the end: a long check
# started last would run alone (alone, warm: staticcheck 51 s, fuzzsmoke
# 37 s, contrib 14 s, ports 12 s, vet 7 s, the rest 3 s or less).
CHECKS   := gotest cli staticcheck fuzzsmoke contrib ports vet vectorcheck purity walk tidycheck clauses fmtcheck
TESTJOBS ?= 2
FAILED   := bin/make-test-failed

test:
	@mkdir -p bin && rm -f $(FAILED) && start=$$(date +%s) && \
	$(MAKE) --no-print-directory -k -j$(TESTJOBS) --output-sync=target $(CHECKS:%=check-%); \
	took=$$(( $$(date +%s) - start )); times >bin/times-test; cpu=$$($(CPUSECS) bin/times-test); \
	if [ -s $(FAILED) ]; then \
		echo "make test: FAILED: $$(paste -sd' ' $(FAILED)) ($$(wc -l <$(FAILED)) of $(words $(CHECKS)) checks failed; their output is above) in $${took}s, $${cpu} CPU-s"; exit 1; \
	fi; \
	echo "make test: $(words $(CHECKS)) checks passed in $${took}s, $${cpu} CPU-s"

# check-NAME runs check NAME for make test, recording it when it fails, and
# says how long it took.
check-%:
	@mkdir -p bin; start=$$(date +%s); $(MAKE) --no-print-directory $* || { echo $* >>$(FAILED); echo "check $*: FAILED after $$(( $$(date +%s) - start ))s"; exit 1; }; \
	times >bin/times-$*; echo "check $*: passed in $$(( $$(date +%s) - start ))s, $$($(CPUSECS) bin/times-$*) CPU-s"

# The CPU seconds (user and system) of the shell's children, from the
# shell's times builtin (written to a file: in a subshell or a pipe it
# would count the subshell's children): where a check's time goes.
CPUSECS = awk 'NR == 2 { split($$1, u, "m"); split($$2, s, "m"); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'

# The longer searches, outside make test: the rapid properties at
# RAPIDCHECKS checks, LINROUNDS concurrent histories per linearizability
# check, each fuzz target for FUZZTIME, and the wall-clock time each
# planted mutant takes limcheck fuzz to find (a measurement, not a check).
LINROUNDS ?= 500
test-long: proptest
	$(GOTEST) -race -count=1 -run Lin ./fuzz -lin.rounds=$(LINROUNDS)
	$(GOTEST) -count=1 -run 'PropRedis' ./fuzz -rapid.checks=$(RAPIDCHECKS)
	@$(call fuzzrun,$(FUZZTIME),$(FUZZFILES),-tags fuzzsmoke,bin/fuzz.test)
	@$(call fuzzrun,$(FUZZTIME),$(REDISFUZZFILES),,bin/fuzz-redis.test)
	$(GOTEST) -count=1 -run '^$$' -bench MutantTimeToFind -benchtime 1x ./cmd/limcheck

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	cd contrib && $(GO) vet ./...

# go mod tidy -diff in each module, the root, bench/ and contrib/ (each with
# its own go.mod and a replace of the root): fails, naming the module, when
# tidy would change its go.mod or go.sum.
tidycheck:
	@rc=0; \
	$(GO) mod tidy -diff || { echo "tidycheck: the root module is not tidy: run go mod tidy and commit go.mod and go.sum"; rc=1; }; \
	(cd bench && $(GO) mod tidy -diff) || { echo "tidycheck: the bench module is not tidy: run go mod tidy in bench and commit its go.mod and go.sum"; rc=1; }; \
	(cd contrib && $(GO) mod tidy -diff) || { echo "tidycheck: the contrib module is not tidy: run go mod tidy in contrib and commit its go.mod and go.sum"; rc=1; }; \
	if [ $$rc = 0 ]; then echo "tidycheck: the root, bench and contrib modules are tidy"; fi; exit $$rc

# staticcheck over the three modules, tests included (its default), at a pinned
# version that go run builds on demand: it is no requirement of any go.mod.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

staticcheck:
	$(GO) run $(STATICCHECK) ./...
	cd bench && $(GO) run $(STATICCHECK) ./...
	cd contrib && $(GO) run $(STATICCHECK) ./...

# The model's purity rule (spec: no package-level mutable state, goroutines,
# locks, wall clock or randomness), as a go/analysis analyzer over model/.
# The analyzer's own test runs in gotest, with PLAINPKGS.
purity:
	$(GO) run ./internal/cmd/puritycheck ./model/...

# Every clause of spec.md cited by the model and exercised by a test; every
# cited ID defined. speccheck prints the clause coverage table; clauses (in
# make test) prints only problems.
speccheck:
	$(GO) run ./internal/cmd/speccheck .

clauses:
	@$(GO) run ./internal/cmd/speccheck . >/dev/null && echo "speccheck: every clause cited and tested"

# The CLI's tests in the plain build (without the race detector): the
# planted-mutant matrix (cmd/limcheck/mutants_test.go: every bug of
# ports/mutants.json in both reference ports must fail the vectors and be
# found and shrunk by limcheck fuzz within a budget of ops and runs), the
# reference ports' and the README's and docs' command tests, and the CLI scripts
# that do not exercise limcheck's own concurrency (those, raceScripts in
# script_test.go, run under -race in gotest, which builds none of the
# others). None of them measures limcheck's concurrency, and the detector
# makes them three to four times as slow. The matrix's cells and the
# scripts wait on port processes, so CLIPAR of them run at once. mutants
# runs the matrix alone.
CLIPAR ?= 4
cli:
	$(GOTEST) -count=1 -timeout 30m -parallel $(CLIPAR) ./cmd/limcheck

# The contrib module (contrib/go.mod, with a replace of the root): the
# metrics adapters of impl/httplimit for Prometheus (contrib/prommetrics)
# and OpenTelemetry (contrib/otelmetrics), kept out of the root module's
# requirements, and the example API server (contrib/examples/apiserver).
# Their tests serve on loopback and run the example's binary, so they run
# under the race detector.
contrib:
	cd contrib && $(GOTEST) -race -count=1 -timeout 30m ./...

mutants:
	$(GOTEST) -count=1 -timeout 30m -parallel $(CLIPAR) -run '^TestEveryMutantIsCaughtByRunAndFoundByFuzz$$' ./cmd/limcheck

# The whole suite: under the race detector, the packages whose tests run
# the module's code on several goroutines (RACEPKGS: a go statement, or
# os/exec, os/signal or httptest, in the package, its tests or a module
# package it reaches); without it, the rest (PLAINPKGS: the model, the
# oracle, the spec and vector tools, whose tests are single-goroutine, so
# the detector could find nothing there, and would make them several times
# slower). internal/archcheck's TestEveryConcurrentTestRunsUnderTheRaceDetector
# fails when a package is in neither list, in both, or concurrent and not
# in RACEPKGS. -timeout is a backstop for a hang, far above what a busy
# machine needs; no test has a tighter one.
RACEPKGS  := ./cmd/... ./conformance/conformancetest ./conformance/protocol ./conformance/report ./conformance/search ./fuzz ./impl/... ./internal/subject ./internal/redistest
PLAINPKGS := . ./conformance ./conformance/cmd/... ./conformance/internal/... ./conformance/judge ./internal/archcheck ./internal/cmd/... ./internal/purity ./internal/slowdown ./internal/speccheck ./internal/walkthrough ./model/... ./oracle/...
#
# A test of a RACEPKGS package in a file built only without the detector
# (//go:build !race: RACEFREEFILES) runs in the plain build, alone
# (RACEFREETESTS of RACEFREEPKGS): a long search on one goroutine, or a
# check of the checks (the Lua mutants) whose concurrent parts are tests of
# their own under the detector; each file says why. cmd/limcheck's are left
# to make cli, which runs that package's plain build whole.
RACEDIRS       := $(patsubst %/...,%,$(RACEPKGS:./%=%))
RACEFREEFILES  := $(filter-out cmd/limcheck/%,$(shell grep -rlE --include='*_test.go' '^//go:build .*!race' $(RACEDIRS)))
RACEFREEPKGS   := $(sort $(patsubst %/,./%,$(dir $(RACEFREEFILES))))
RACEFREETESTS  := $(shell sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' $(RACEFREEFILES) | paste -sd'|')
gotest:
	$(GOTEST) -race -count=1 -timeout 30m -parallel 4 $(RACEPKGS)
	$(GOTEST) -count=1 -timeout 30m -parallel 4 $(PLAINPKGS)
	$(GOTEST) -count=1 -timeout 30m -run '^($(RACEFREETESTS))$$' $(RACEFREEPKGS)

# The README's main command (the bundled Go implementation against every
# vector, a short differential fuzz, spec.md's worked example), as a smoke
# run.
walk:
	$(GO) run ./cmd/limcheck

proptest:
	$(GOTEST) -count=1 -run 'Prop' ./model/... -rapid.checks=$(RAPIDCHECKS)

fmt:
	gofmt -w $$(git ls-files '*.go')

# Every go test -fuzz target of ./fuzz (each "func FuzzX(f *testing.F)" of its
# test files), in turn, $(1) each, from one fuzz-instrumented test binary
# (go test -c -fuzz): go test -fuzz per target would relink it each time.
# fuzzrun's $(2) are the test files whose targets it runs, $(3) the build
# flags and $(4) the binary. make fuzz and fuzzsmoke run the targets of
# FUZZFILES (every file but the Redis ones) from a binary built with the
# fuzzsmoke tag, which leaves the Redis tests (fuzz/redis_*_test.go) out:
# none of those targets needs them, and they would bring rueidis into the
# instrumented build (about 90 CPU-seconds of a cold run). make fuzz-redis
# runs the Redis targets (REDISFUZZFILES) from a binary built without it;
# gotest runs their seeds. The binary gets what go test -fuzz passes it (the package directory as
# its working directory, the fuzz cache under GOCACHE). Each target: the model against impl on decoded byte inputs. A new
# interesting input is minimized for at most FUZZMINTIME (go's default, a
# minute, can take a whole run's time). Both are counts of executions (Nx)
# in make test, not durations: go 1.26's fuzz coordinator can report a
# spurious "context deadline exceeded" failure when a duration runs out while
# a starved worker is mid-input (golang/go#75804, fixed in go 1.27), and a
# count has no deadline to race.
FUZZFILES      := $(filter-out fuzz/redis_%,$(wildcard fuzz/*_test.go))
REDISFUZZFILES := $(wildcard fuzz/redis_*_test.go)
fuzzrun = targets=$$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*/\1/p' $(2)) && [ -n "$$targets" ] || { echo "fuzz: no Fuzz targets in the files given"; exit 1; }; \
	mkdir -p bin && $(GOTEST) -c -fuzz . $(3) -o $(4) ./fuzz || exit 1; \
	cache="$$($(GO) env GOCACHE)/fuzz/github.com/limcheck/limcheck/fuzz"; \
	for t in $$targets; do \
		echo "fuzz $$t ($(1))"; \
		(cd fuzz && ../$(4) -test.run '^$$' -test.fuzz "^$$t$$" -test.fuzztime $(1) \
			-test.fuzzminimizetime $(FUZZMINTIME) -test.fuzzcachedir "$$cache" -test.paniconexit0 -test.timeout 30m) || exit 1; \
	done

fuzz:
	@$(call fuzzrun,$(FUZZTIME),$(FUZZFILES),-tags fuzzsmoke,bin/fuzz.test)

# Each Redis fuzz target (fuzz/redis_fuzz_test.go: the gate and the
# throttle on Redis against the model) for FUZZTIME, against a redis-server
# that each fuzz worker process starts for itself (and that dies with it).
# A Redis input takes milliseconds, so on a machine loaded far past its
# cores a duration can end on a starved worker and hit go 1.26's spurious
# "context deadline exceeded" (above); a count (FUZZTIME=20000x) cannot.
fuzz-redis:
	@$(call fuzzrun,$(FUZZTIME),$(REDISFUZZFILES),,bin/fuzz-redis.test)

# Each fuzz target briefly, in make test: the seed corpus and FUZZSMOKE
# mutated inputs.
fuzzsmoke:
	@$(call fuzzrun,$(FUZZSMOKE),$(FUZZFILES),-tags fuzzsmoke,bin/fuzz.test)

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
	$(GOTEST) -count=1 -run '^TestVectorCoverage$$' -v ./fuzz

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
# A port gets a minute (times LIMCHECK_TEST_SLOWDOWN) for its hello and each
# reply: a busy machine must not make a healthy port look hung. Python runs
# as the interpreter $(PYTHON) names (sys.executable), not through it: a
# version manager's shim (pyenv's) costs about 0.75 CPU-seconds a start.
PYTHON ?= python3
NODE   ?= node
LIMCHECK := bin/limcheck
PORTS  := '$(LIMCHECK) serve' "$$py ports/python/driver.py" '$(NODE) ports/js/driver.js'
PORTFUZZOPS ?= 20000

$(LIMCHECK): FORCE
	$(GO) build -o $@ ./cmd/limcheck

FORCE:

ports: $(LIMCHECK)
	@py=$$($(PYTHON) -c 'import sys; print(sys.executable)') && \
	echo "$(PYTHON) is $$py" && set -x && \
	"$$py" -m unittest discover -s ports/python/tests && \
	"$$py" ports/python/run_vectors.py $(VECTORS) && \
	$(NODE) --test --test-reporter=dot ports/js/test/*.test.js && \
	$(NODE) ports/js/run_vectors.js $(VECTORS) && { set +x; } 2>/dev/null && \
	w=$$(awk "BEGIN { print 60 * $${LIMCHECK_TEST_SLOWDOWN:-1} }")s && \
	for p in $(PORTS); do \
		echo "limcheck run --strict -q --port '$$p'"; $(LIMCHECK) run --handshake-timeout $$w --request-timeout $$w --strict -q --port "$$p" || exit 1; \
		echo "limcheck fuzz --seed 1 --ops $(PORTFUZZOPS) --port '$$p'"; $(LIMCHECK) fuzz --handshake-timeout $$w --request-timeout $$w --seed 1 --ops $(PORTFUZZOPS) --port "$$p" || exit 1; \
	done

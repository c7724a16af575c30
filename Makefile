# nexttoken: `make run` and `make test` are the two commands a person needs.
GO ?= go
FUZZTIME ?= 5s

.PHONY: run test check unit wasm-build fuzz bench toymodel

# run prints the worked example, decoded by the toy model, step by step.
# (The browser playground comes with the `serve` command.)
run:
	$(GO) run ./cmd/nexttoken trace --model=toy --prompt="The cat" --steps=4

# test runs every check CI runs.
test: check unit wasm-build fuzz

check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test ./...

# The engine must build for the browser too.
wasm-build:
	GOOS=js GOARCH=wasm $(GO) vet ./engine/...
	GOOS=js GOARCH=wasm $(GO) build ./engine/...

# fuzz runs each fuzz target briefly (their seed corpora already ran in unit).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$target $(FUZZTIME)"; \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 1s $$pkg 2>&1) || { echo "$$out"; exit 1; }; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./engine/...

# toymodel regenerates the toy model files (the tests check they match).
toymodel:
	$(GO) run ./cmd/toymodel web/models

# nexttoken: `make run` and `make test` are the two commands a person needs.
GO ?= go
FUZZTIME ?= 5s
ADDR ?= 127.0.0.1:8000
# The URL path make static exports the site for.
BASE ?= /
# The browser the browser tests drive (Debian's package is chromium).
CHROMIUM ?= chromium
# Where a failed browser test leaves its screenshot, HTML and console.
ARTIFACTS ?= $(CURDIR)/test-artifacts

# Everything the browser program is built from: its Go files and every
# file they embed (the built-in models, the SIMD kernels' modules).
WASM_SOURCES := $(shell find engine wasm web/models cmd/striplines \( -name '*.go' ! -name '*_test.go' \) -o -name '*.bin' -o -name '*.wasm' -o -name '*.s') go.mod go.sum

.PHONY: run static trace test check unit wasm-build jstest fuzz bench measure timing loadtest screenshot chromium node brotli nexttoken clean FORCE

# withProgress runs command $(2), announced as $(1), and says every 10 s
# that it is still running and for how long: no step of a build is silent.
withProgress = echo "$(1)"; \
	( s=0; while sleep 10 </dev/null >/dev/null 2>&1; do s=$$((s + 10)); echo "  ... $(1): $${s} s"; done ) & ticker=$$!; \
	$(2); status=$$?; kill $$ticker 2>/dev/null; wait $$ticker 2>/dev/null; \
	[ $$status = 0 ] || echo "$(1): failed"; exit $$status

# run serves the playground at http://$(ADDR)/ (make run ADDR=0.0.0.0:9000).
# It builds app.wasm (and its gzip copy), the server and chat.wasm (with
# its copies) side by side, then
# compresses app.wasm with a quick brotli level unless the best one's copy
# is current; the server binary, ./nexttoken, is kept, so a second make run
# starts at once.
run: brotli
	@$(MAKE) --no-print-directory -j2 web/app.wasm.gz web/shared/app.wasm nexttoken web/chat.wasm.br $(WEB_TEXT_BR)
	@for wasm in web/app.wasm web/shared/app.wasm; do \
	  if [ $$wasm.br -nt $$wasm ]; then :; \
	  elif command -v brotli >/dev/null 2>&1; then \
	    echo "brotli -q $(QUICK_BROTLI) $$wasm (a quick level; make $$wasm.br makes the smallest copy)"; \
	    brotli -q $(QUICK_BROTLI) -f $$wasm && touch $$wasm.br $$wasm.br.quick; \
	  else echo "no brotli command: serving $$wasm with gzip only (apt-get install brotli)"; fi; \
	done
	./nexttoken serve --addr $(ADDR)

# nexttoken builds the command line, ./nexttoken; go build relinks it only
# when a source changed.
nexttoken:
	@$(call withProgress,building ./nexttoken (go build ./cmd/nexttoken),$(GO) build -o nexttoken ./cmd/nexttoken)

# static writes the playground into static/, made afresh, as a static site
# that any static host or CDN serves as plain files at the site root;
# make static BASE=/nexttoken/ writes it for that sub-path instead. Its
# page fetches app.wasm.lzma and decodes it, so a host that compresses
# nothing sends 1.9 MB, not 11 MB (docs/playground.md).
static: web/app.wasm.br web/app.wasm.lzma web/chat.wasm.br $(WEB_TEXT_BR)
	rm -rf static
	$(GO) run ./cmd/nexttoken export --base=$(BASE) static

# trace prints the worked example, decoded by the toy model, step by step.
trace:
	$(GO) run ./cmd/nexttoken trace --model=toy --prompt="The cat" --steps=4

# web/app.wasm is the playground's browser program. Inlining is off in the packages off the decode
# path (the page, go-app, links, file formats, the session's bookkeeping,
# the other runtimes' samplers, the checkpoint's bookkeeping, the glue
# around the SIMD kernels and JavaScript calls, whose cost is the call, and
# the standard library's formatting, encodings and reflection that go-app
# and error messages use), which keeps the first page under 2.0 MB
# (docs/performance.md has the sizes and the command that measures them);
# the model, the sampler's chain, package quant's Go kernels, strconv,
# time and syscall/js keep it. So do SHA-256 and the byte order helpers
# it inlines (INLINE), which hash a reader's files where the page has no
# crypto.subtle (the browser's digest hashes them elsewhere), while the
# rest of crypto, mime, compress and the vendored x/net and x/crypto
# are linked only for go-app's server side and package init.
NOINLINE := nexttoken/wasm/ui nexttoken/wasm/play nexttoken/engine/link nexttoken/engine/gguf \
	nexttoken/engine/tokenizer nexttoken/engine/modelfile nexttoken/engine/catalog \
	nexttoken/engine/checkpoint nexttoken/engine/internal/wasmsimd github.com/hack-pad/safejs \
	nexttoken/web/models github.com/google/uuid \
	nexttoken/engine/session nexttoken/engine/tracefile nexttoken/engine/sampler/compare \
	nexttoken/engine/sampler/llamacpp nexttoken/engine/sampler/hf \
	github.com/maxence-charriere/go-app/v10/... \
	fmt reflect log html math/big encoding/... regexp/... text/... database/... \
	crypto/... mime/... compress/... vendor/...
INLINE := crypto/sha256 crypto/internal/fips140/sha256 crypto/internal/fips140deps/...
# The program takes Go's classic garbage collector (GOEXPERIMENT=nogreenteagc):
# the default one, built for many cores, costs the one-thread browser 11 KB of
# the first page after brotli and nothing it can use (docs/performance.md).
# striplines then clears the file and line tables only stack traces print:
# 130 KB less after brotli (cmd/striplines).
web/app.wasm: $(WASM_SOURCES)
	@$(call withProgress,building web/app.wasm (Go compiled to WebAssembly),\
	  GOEXPERIMENT=nogreenteagc GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' $(foreach p,$(NOINLINE),-gcflags='$(p)=-l') $(foreach p,$(INLINE),-gcflags='$(p)=') -o $@ ./wasm && $(GO) run ./cmd/striplines $@)

# web/app.wasm.gz is the copy for browsers without brotli.
web/app.wasm.gz: web/app.wasm
	@$(call withProgress,gzip -9 web/app.wasm,gzip -9 -k -f web/app.wasm && touch $@)

# The page's own scripts and stylesheets get brotli copies too, which serve
# sends to browsers that take brotli: smaller than the gzip it makes.
WEB_TEXT_BR := $(patsubst %,%.br,$(wildcard web/*.css web/*.js))
web/%.css.br: web/%.css | brotli
	@! command -v brotli >/dev/null 2>&1 || brotli -q 11 -f -o $@ $<
web/%.js.br: web/%.js | brotli
	@! command -v brotli >/dev/null 2>&1 || brotli -q 11 -f -o $@ $<

# web/app.wasm.br is the copy browsers download: brotli's best quality,
# because the first page must cost at most 2.0 MB (TestFirstPageBytes).
# make run makes a quick copy instead (QUICK_BROTLI) and leaves
# $(QUICK_STAMP), so that this rule makes the best one again. A copy older
# than app.wasm is never served: the server sends gzip until this runs.
QUICK_BROTLI ?= 9
QUICK_STAMP := web/app.wasm.br.quick
web/app.wasm.br: web/app.wasm.gz $(if $(wildcard $(QUICK_STAMP)),FORCE) | brotli
	@if command -v brotli >/dev/null 2>&1; then \
	  $(call withProgress,brotli -q 11 web/app.wasm (the smallest copy),brotli -q 11 -f web/app.wasm && touch $@ && rm -f $(QUICK_STAMP)); \
	else echo "no brotli command: serving app.wasm with gzip only (apt-get install brotli)"; rm -f $@ $(QUICK_STAMP); fi

FORCE:

# web/shared/app.wasm is app.wasm on a shared memory (cmd/wasmshare), which
# a cross-origin isolated page downloads instead, to run the matrix
# products on several threads (web/kernel-threads.js). Brotli's best
# quality, as app.wasm's; make run makes a quick copy.
SHARED_QUICK_STAMP := web/shared/app.wasm.br.quick
web/shared/app.wasm: web/app.wasm
	@mkdir -p web/shared && $(GO) run ./cmd/wasmshare -o $@ web/app.wasm
web/shared/app.wasm.br: web/shared/app.wasm $(if $(wildcard $(SHARED_QUICK_STAMP)),FORCE) | brotli
	@if command -v brotli >/dev/null 2>&1; then \
	  $(call withProgress,brotli -q 11 web/shared/app.wasm,brotli -q 11 -f web/shared/app.wasm && touch $@ && rm -f $(SHARED_QUICK_STAMP)); \
	else rm -f $@ $(SHARED_QUICK_STAMP); fi

# web/chat.wasm is the chat template engine (package engine/chat) as a
# program of its own, wasm/chat, which the page fetches and starts only
# with a model that has a chat template: the engine would cost the first
# page 121 KB of brotli. The server sends its brotli or gzip copy.
web/chat.wasm: $(WASM_SOURCES)
	@$(call withProgress,building web/chat.wasm (the chat template engine),\
	  GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./wasm/chat && $(GO) run ./cmd/striplines $@)
web/chat.wasm.gz: web/chat.wasm
	@$(call withProgress,gzip -9 web/chat.wasm,gzip -9 -k -f web/chat.wasm && touch $@)
web/chat.wasm.br: web/chat.wasm.gz | brotli
	@if command -v brotli >/dev/null 2>&1; then \
	  $(call withProgress,brotli -q 11 web/chat.wasm,brotli -q 11 -f web/chat.wasm && touch $@); \
	else rm -f $@; fi

# web/app.wasm.lzma is the copy a static site's page fetches and decodes
# itself (nexttoken export), for hosts that send files as they are: the
# smallest that a short script decodes (browsers' DecompressionStream
# has gzip, 2.7 MB, and not brotli).
web/app.wasm.lzma: web/app.wasm
	@if command -v xz >/dev/null 2>&1; then \
	  $(call withProgress,xz --format=lzma -9e web/app.wasm (the copy static sites decode),xz --format=lzma -9e -k -f web/app.wasm && touch $@); \
	else echo "no xz command: a static site's page will fetch app.wasm as it is (apt-get install xz-utils)"; rm -f $@; fi

# test runs every check CI runs.
test: check unit wasm-build jstest fuzz

check:
	@unformatted=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# withBrowser runs a command with what the browser tests need in its
# environment, and TMPDIR (browser profiles, test folders) in a folder of
# this run, removed afterwards.
withBrowser = tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	TMPDIR=$$tmp NEXTTOKEN_CHROMIUM=$(CHROMIUM) NEXTTOKEN_ARTIFACTS=$(ARTIFACTS)

# unit runs every test, the browser tests too: NEXTTOKEN_BROWSER=1 makes a
# missing app.wasm or Chromium a failure, not a skip.
unit: web/app.wasm.br web/shared/app.wasm.br web/app.wasm.lzma web/chat.wasm.br $(WEB_TEXT_BR) chromium node
	$(withBrowser) NEXTTOKEN_BROWSER=1 $(GO) test -timeout 20m ./...

# timing measures the page in headless Chromium (measurements, not tests:
# nothing is asserted about the times): cold and warm start → live, how
# long an edit, a step, a slider's input and the first Step take to reach
# the DOM, Run's tok/s on stories260K and on a random SmolLM2-135M-shape
# Q8_0 model fetched by URL (with every step drawn, against an embed of
# the tokens alone), the engine's decode speed with its SIMD and Go
# kernels, and BenchmarkRender's bytes and allocations a drawn page
# (-benchmem). .ci/timing runs it; docs/timing.md says how to read it.
# make timing BASELINE=<git rev> measures every page figure side by side
# with that revision's build, in alternating rounds, as ratios now/before:
# it exports the revision to a temporary folder, builds its app.wasm and
# server, serves it while the tests run and removes it afterwards
# (see docs/timing.md). NEXTTOKEN_TIMING_ONLY=<regexp> measures only the
# figures (or tests, or BenchmarkRender) it matches, such as
# NEXTTOKEN_TIMING_ONLY='toy|stories260K|SmolLM2|start|BenchmarkRender'
# for the page's figures alone.
# make timing WLLAMA=/path compares the decode speed with wllama's
# (llama.cpp in WebAssembly), installed outside the project with
# cd /path && npm install @wllama/wllama@3.8.1, on the same GGUF files,
# type by type. NEXTTOKEN_TIMING_FORMATS=q4_k,q6_k make timing decodes
# only those formats (f32, q8_0, q4_0, q5_0, q5_1, iq4_nl, q4_k, q6_k,
# q3_k, q2_k, iq4_xs, q4_k_m, q5_k_m; q8_0 also on SmolLM2's shape in every
# architecture); NEXTTOKEN_TIMING_KEEP=DIR keeps those files in DIR;
# NEXTTOKEN_TIMING_ROUNDS=1 takes one round instead of five (three for
# the SmolLM2 model).
WLLAMA ?=
BASELINE ?=
timing: web/app.wasm.br web/shared/app.wasm.br $(WEB_TEXT_BR) chromium
	$(withBrowser) GO=$(GO) BASELINE=$(BASELINE) NEXTTOKEN_WLLAMA=$(WLLAMA) bash .ci/timing

# loadtest measures nexttoken serve, built from the source (go build, as
# the tests do), as a process of its own on a loopback port. First
# LOAD_REQUESTS requests, LOAD_CONCURRENCY at a time, in turn over /,
# /app.wasm, /web/app.css and /docs/: requests/s, errors, the latency's
# p50 and p99 (all and by path) and the server's RSS before and after.
# Then LOAD_LINKS distinct links, each once, LOAD_LINK_CONCURRENCY at a
# time: readable links and embeds of sessions up to the most steps a link
# allows, prompts of kilobytes, the toy model, the worked example, models
# the server does not have and hostile links (huge numbers, NaN, values
# too long): the latency's p50, p90, p99 and maximum (all and by kind of
# link), requests/s, the server's peak RSS and CPU time and the load
# average before and after, and a summary in one line. Measurements: the
# timings are reported, never checked, while an error (a status other
# than 200, a timeout, a page cut short), an unclean shutdown or a peak
# RSS above 64 MB fails it. make test runs a brief version of the first,
# TestLoad, that checks every byte, and checks the links of the second,
# TestLoadLinksMix.
LOAD_REQUESTS ?= 2000
LOAD_CONCURRENCY ?= 16
LOAD_LINKS ?= 1000
LOAD_LINK_CONCURRENCY ?= 32
loadtest: web/app.wasm.br web/shared/app.wasm.br
	GO=$(GO) NEXTTOKEN_LOAD=1 NEXTTOKEN_LOAD_REQUESTS=$(LOAD_REQUESTS) NEXTTOKEN_LOAD_CONCURRENCY=$(LOAD_CONCURRENCY) \
	  NEXTTOKEN_LOAD_LINKS=$(LOAD_LINKS) NEXTTOKEN_LOAD_LINK_CONCURRENCY=$(LOAD_LINK_CONCURRENCY) \
	  $(GO) test -run '^(TestLoadMeasure|TestLoadLinks)$$' -count=1 -v ./cmd/nexttoken

# aptInstall installs Debian's packages $(1) with apt-get, saying so first;
# when another install holds apt's lock it waits for it (up to 5 minutes).
aptInstall = echo "installing $(1) with apt-get (apt-get update && apt-get install -y $(1))"; \
	apt-get -o DPkg::Lock::Timeout=300 update -q && \
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q $(1)

# needCommand makes sure command $(1) is there for $(3): as root with
# apt-get it installs Debian's package $(2), otherwise it says what to run.
needCommand = if ! command -v $(1) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "$(3) need $(1)"; $(call aptInstall,$(2)); \
	  else \
	    echo "$(3) need $(1): sudo apt-get install -y $(2)"; exit 1; \
	  fi; \
	fi

# chromium makes sure the browser tests have a browser (make test
# CHROMIUM=/path/to/chrome for another), node that jstest has Node.js.
chromium:
	@$(call needCommand,$(CHROMIUM),chromium,the browser tests)
node:
	@$(call needCommand,node,nodejs,the WebAssembly tests)

# brotli installs Debian's brotli as root with apt-get, if it is missing
# and can be; without it the server sends app.wasm gzipped, a larger download.
brotli:
	@if ! command -v brotli >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "app.wasm is compressed with brotli"; { $(call aptInstall,brotli); } || echo "could not install brotli"; \
	fi

# The engine and the playground must build and vet for the browser too.
wasm-build:
	GOOS=js GOARCH=wasm $(GO) vet ./engine/... ./wasm/...
	GOOS=js GOARCH=wasm $(GO) build ./engine/...

# jstest runs the engine's tests again compiled to WebAssembly, and
# decodebench's, under Node.js (Go's go_js_wasm_exec), where the SIMD
# kernels load as they do in the browser: among them their bit-for-bit
# tests against the Go kernels. The embedmodels tag embeds the built-in
# models, which the page fetches. (The page's own tests, wasm/ui, run
# natively: they render views to HTML with go-app's server side.) Then the
# kernels' thread tests once more on a shared memory, as a cross-origin
# isolated page has it (cmd/wasmshare), where
# they run on two and three threads instead of skipping.
jstest: node
	GOOS=js GOARCH=wasm $(GO) test -tags embedmodels -exec="$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" ./engine/... ./wasm/decodebench
	GO=$(GO) GOOS=js GOARCH=wasm $(GO) test -exec="$(CURDIR)/cmd/wasmshare/exec" -run Threads ./engine/internal/wasmsimd ./engine/transformer

# fuzz runs each fuzz target briefly (their seed corpora already ran in unit).
# A run that fails is run once more: an input that crashes a target is saved
# in its testdata and fails the second run too, while the fuzzer's own
# hiccups on a loaded machine (a worker that does not answer) do not.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$target $(FUZZTIME)"; \
	    run="$(GO) test -run ^$$ -fuzz ^$$target$$ -fuzztime $(FUZZTIME) -fuzzminimizetime 1s $$pkg"; \
	    out=$$($$run 2>&1) || { echo "$$out"; echo "fuzz: running $$target once more"; $$run || exit 1; }; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./engine/...

# measure measures a session on a random checkpoint of stories15M's shape
# (package engine/randmodel; generated in memory and in a temporary folder,
# never committed), over 256 steps of "Once upon a time" at temperature 0.8
# and top-p 0.9, and on stories260K: decode tok/s of the bare engine
# (transformer.Forward in a loop) and of session.Step, side by side, with
# their ratio; the heap a session holds beyond its model after its steps
# and at its peak; the peak RSS of nexttoken trace (/usr/bin/time -v, or
# getrusage); and --json bytes per step, compact and with --vectors.
# A measurement, not a test (make test does not run it).
# MEASURE_BENCHTIME sets the iterations of each decode benchmark.
MEASURE_BENCHTIME ?= 5x
# measureStep runs a go test command $(2) into a file of this run and prints
# the lines matching $(3), without go test's file:line prefix, under the
# title $(1); a failing command prints all it wrote and fails measure at
# the end.
measureStep = echo "== $(1)"; \
	$(2) > "$$tmp/out" 2>&1 || { cat "$$tmp/out"; status=1; }; \
	grep -E '$(strip $(3))' "$$tmp/out" | sed 's/^ *measure_test.go:[0-9]*: /  /';
measure:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && status=0; \
	$(call measureStep,decode: bare engine and session side by side (tok/s counts forward passes),\
	  $(GO) test -run '^$$' -bench '^BenchmarkDecode$$' -benchtime=$(MEASURE_BENCHTIME) -count=1 -v ./engine/session,\
	  ^Benchmark.*(bare|session)-|session/bare) \
	$(call measureStep,session heap beyond the model after its steps and at its peak (runtime.MemStats),\
	  $(GO) test -run '^TestSessionMemory$$' -bench '^BenchmarkSessionMemory$$' -benchtime=1x -count=1 -v ./engine/session,\
	  measure_test.go|^BenchmarkSessionMemory/.*ns/op|^--- FAIL) \
	$(call measureStep,nexttoken trace: peak RSS and --json bytes per step,\
	  GO=$(GO) NEXTTOKEN_MEASURE=1 $(GO) test -run '^TestMeasure$$' -count=1 -v ./cmd/nexttoken,\
	  measure_test.go|^--- FAIL) \
	exit $$status

# screenshot takes docs/screenshot.png, the README's picture of the opening
# page, and docs/tour/, the guided tour's stops, again (TestScreenshot,
# TestTour; make test checks the committed ones without writing them, so a
# test run leaves the tree as it was).
screenshot: web/app.wasm.br web/shared/app.wasm.br $(WEB_TEXT_BR) chromium
	$(withBrowser) NEXTTOKEN_BROWSER=1 NEXTTOKEN_SCREENSHOT=1 $(GO) test -run '^(TestScreenshot|TestTour)$$' -count=1 ./cmd/nexttoken

# toymodel regenerates the toy model files (the tests check they match).
toymodel:
	$(GO) run ./cmd/toymodel web/models

clean:
	rm -rf web/shared
	rm -f web/app.wasm web/app.wasm.gz web/app.wasm.br $(QUICK_STAMP) web/chat.wasm web/chat.wasm.gz web/chat.wasm.br nexttoken
	rm -rf static
	rm -rf $(ARTIFACTS)

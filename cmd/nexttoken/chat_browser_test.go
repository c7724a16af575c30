package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"nexttoken/engine/conversation"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// TestChatInThePage opens a random model with Qwen2.5's chat template in
// the page, which starts the template engine, web/chat.wasm, with it. The
// chat box's messages render the prompt llama.cpp renders for them, byte
// for byte, as the native engine does; the reply stops at <|im_end|>, the
// template's end of turn, at the step the command line stops at
// (TestTraceChat); and the session's share link reopens it exactly.
func TestChatInThePage(t *testing.T) {
	path := chatGGUF(t, readChatTestdata(t, "qwen2.5-instruct.jinja"))
	rendered := readChatTestdata(t, "expected/qwen2.5-instruct/system-user.gen.txt")
	messages := []conversation.Message{{Role: "system", Content: "You are a helpful assistant."}, {Role: "user", Content: "Hello"}}
	model, err := loadChat(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	native, err := session.New(session.Spec{Model: path, Chat: &session.Chat{Messages: messages, GenerationPrompt: true}, Sampler: sampler.DefaultSettings(), Steps: 40},
		func(string) (*session.Model, error) { return model, nil })
	if err != nil {
		t.Fatal(err)
	}
	if native.Prompt() != rendered {
		t.Fatalf("the native engine renders %q, llama.cpp %q", native.Prompt(), rendered)
	}

	tab := openPage(t, "/")
	must(tab, "choose the chat model", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{path}))
	// A model with a chat template opens as a chat, the prompt its user's message.
	waitFor(tab, `document.querySelectorAll("#chat .message").length === 1 && document.querySelector("#prompt") === null &&
		document.querySelector("#chat-prompt").textContent === "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nThe cat<|im_end|>\n<|im_start|>assistant\n"`)
	setInput(tab, "#chat .message:nth-child(1) textarea", messages[0].Content)
	waitFor(tab, `document.querySelector("#chat-prompt").textContent.includes("user\nYou are a helpful assistant.<|im_end|>")`)
	setInput(tab, "#chat .message:nth-child(1) select", "system")
	waitFor(tab, `document.querySelector("#chat-prompt").textContent.startsWith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>assistant")`)
	click(tab, "#add-message")
	waitFor(tab, `document.querySelectorAll("#chat .message").length === 2`)
	setInput(tab, "#chat .message:nth-child(2) textarea", messages[1].Content)
	waitFor(tab, `document.querySelector("#chat-prompt").textContent === `+jsString(rendered))
	drawn(tab)
	if n := evaluate[int](tab, `document.querySelectorAll("#chat-prompt mark.special").length`); n != 5 {
		t.Errorf("%d special tokens marked in the rendered prompt, want 5", n)
	}
	if n := evaluate[int](tab, `document.querySelectorAll("#tokens .tok.prompt.special").length`); n != 5 {
		t.Errorf("%d special tokens marked in the strip, want 5", n)
	}

	// Greedy steps to the end of the assistant's turn.
	for range 12 {
		click(tab, "#step")
	}
	waitFor(tab, `document.querySelector("#status").textContent.includes("the model ended the assistant's turn with <|im_end|>")`)
	drawn(tab)
	tr := native.Trace()
	if got := evaluate[string](tab, `document.querySelector("#text").textContent`); got != tr.Text || tr.Stop.Kind != session.EndOfTurn || len(tr.Steps) != 8 {
		t.Errorf("the page's text is %q; the native engine's %q, stopped %+v after %d steps", got, tr.Text, tr.Stop, len(tr.Steps))
	}
	if last := evaluate[string](tab, `[...document.querySelectorAll("#tokens .tok.gen")].pop().className`); !strings.Contains(last, "special") {
		t.Errorf("the last token's chip is %q, not marked special", last)
	}

	// The share link, in a fresh tab: the same file, the same chat, the same tokens.
	shared := evaluate[string](tab, `document.querySelector('#share-url').value`)
	again := openTab(t, needBrowser(t).browser)
	must(again, "open the link", chromedp.Navigate(shared))
	must(again, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#wanted-file"), []string{path}))
	waitFor(again, `document.querySelector("#chat-prompt")?.textContent === `+jsString(rendered)+` &&
		document.querySelector("#text")?.textContent === `+jsString(tr.Text))
}

// TestChatEngineMissing: a page whose chat template engine does not come
// (its script, which the page loads to run the engine in a worker) says
// so, and the model reads a prompt as text.
func TestChatEngineMissing(t *testing.T) {
	path := chatGGUF(t, readChatTestdata(t, "qwen2.5-instruct.jinja"))
	tab := openPage(t, "/")
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/web/chat-worker.js", Block: true}}}); err != nil {
		t.Fatal(err)
	}
	must(tab, "choose the chat model", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{path}))
	waitFor(tab, `document.querySelector("#chat-error")?.textContent.startsWith("The model's chat template is not there to use: the chat template engine (") &&
		document.querySelector("#model").selectedOptions[0]?.textContent === `+jsString(filepath.Base(path)+" (your files)"))
	setInput(tab, "#prompt", "<|im_start|>user")
	click(tab, "#step")
	waitFor(tab, `document.querySelectorAll("#tokens .tok.gen").length === 1`)
	if n := evaluate[int](tab, `document.querySelectorAll("#tokens .tok.special").length`); n != 0 {
		t.Errorf("%d special tokens read without the chat template", n)
	}
}

// TestChatEngineStart starts web/chat.wasm in a tab as the page does and
// renders Qwen2.5's template for a conversation with it: the prompt
// llama.cpp renders. It logs how long the download (from the test's
// server, on this machine), the compilation, the start and the first
// rendering (which compiles the template) took: measurements, not checked.
func TestChatEngineStart(t *testing.T) {
	tab := openPage(t, "/")
	src := readChatTestdata(t, "qwen2.5-instruct.jinja")
	type started struct {
		Prompt                                string
		Download, Compile, Start, FirstRender float64
	}
	got := evaluate[started](tab, `(async () => {
		const t0 = performance.now();
		const buf = await (await fetch("/web/chat.wasm")).arrayBuffer();
		const t1 = performance.now();
		const go = new Go();
		const {instance} = await WebAssembly.instantiate(buf, go.importObject);
		const t2 = performance.now();
		go.run(instance);
		const t3 = performance.now();
		const answer = nexttokenChat.render(`+jsString(src)+`, ["system", "user"], ["You are a helpful assistant.", "Hello"], "<|endoftext|>", "<|endoftext|>", true);
		const t4 = performance.now();
		return {Prompt: answer.prompt ?? answer.error, Download: t1 - t0, Compile: t2 - t1, Start: t3 - t2, FirstRender: t4 - t3};
	})()`)
	if want := readChatTestdata(t, "expected/qwen2.5-instruct/system-user.gen.txt"); got.Prompt != want {
		t.Errorf("chat.wasm renders %q, llama.cpp %q", got.Prompt, want)
	}
	t.Logf("chat.wasm: download %.0f ms, compile %.0f ms, start %.0f ms, first render %.0f ms", got.Download, got.Compile, got.Start, got.FirstRender)
}

// TestChatFromURL: a model with a chat template fetched by URL starts the
// template engine in its load as a file's does, and opens as a chat.
func TestChatFromURL(t *testing.T) {
	path := chatGGUF(t, readChatTestdata(t, "qwen2.5-instruct.jinja"))
	models := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Content-Length, Content-Range")
		http.ServeFile(w, r, path)
	}))
	defer models.Close()
	tab := openPage(t, "/")
	setInput(tab, "#model-url", models.URL+"/chat.gguf")
	waitFor(tab, `document.querySelectorAll("#chat mark.special").length === 5 &&
		document.querySelector("#chat-prompt").textContent.endsWith("<|im_start|>user\nThe cat<|im_end|>\n<|im_start|>assistant\n")`)
}

// TestChatTemplateThatNeverEnds opens a model whose chat template loops
// for hours: the page ends the engine's worker after its time limit and
// says why, and stays answering: the model reads a plain prompt, and the
// next model's template renders in a worker started anew.
func TestChatTemplateThatNeverEnds(t *testing.T) {
	endless := chatGGUF(t, `{% for a in range(65536) %}{% for b in range(65536) %}{{ '' }}{% endfor %}{% endfor %}`)
	tab := openPage(t, "/")
	must(tab, "choose the model", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{endless}))
	waitWithin(tab, `document.querySelector("#chat-error")?.textContent.includes("the chat template did not finish within 2 s, so it may never end: the page stopped it")`, 30*time.Second)
	waitFor(tab, `document.querySelector("#prompt") !== null`)
	setInput(tab, "#prompt", "Hello")
	click(tab, "#step")
	waitFor(tab, `document.querySelectorAll("#tokens .tok.gen").length === 1`)

	good := chatGGUF(t, readChatTestdata(t, "qwen2.5-instruct.jinja"))
	must(tab, "choose the next model", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{good}))
	// The chat's first message is the prompt the page had.
	waitFor(tab, `document.querySelector("#chat-prompt")?.textContent.endsWith("<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n")`)
}

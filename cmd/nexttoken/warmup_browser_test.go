package main

import (
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestProgramStartsWarm loads the playground's page and an embed's: each
// runs its program only once a worker has run the program's start on the
// module the page compiled (web/boot.js's nexttokenWarmUp), so that the
// page's own start runs compiled code. The worker's end (the mark
// nexttoken:warmed-up) comes before the program's main (nexttoken:main).
func TestProgramStartsWarm(t *testing.T) {
	h := needBrowser(t)
	for _, link := range []string{"/?model=toy&prompt=The+cat", "/?model=toy&prompt=The+cat&embed=1&view=tokens"} {
		t.Run(link, func(t *testing.T) {
			tab, done := coldTab(t, h)
			defer done()
			if _, err := loadPage(tab, h.url+link); err != nil {
				t.Fatal(err)
			}
			marks := evaluate[string](tab, startMarks)
			if marks != "nexttoken:warmed-up nexttoken:main" {
				t.Errorf("marks %q, want the warm-up's end, then main", marks)
			}
		})
	}
}

// startMarks is a page script: the marks of the warm-up's end and of the
// program's main, in their order.
const startMarks = `performance.getEntriesByType("mark").map(m => m.name).filter(n => n === "nexttoken:warmed-up" || n === "nexttoken:main").join(" ")`

// TestProgramStartsWithoutWorkers loads the playground's page in a
// browser without Web Workers: there is no warm-up, and the program
// starts all the same.
func TestProgramStartsWithoutWorkers(t *testing.T) {
	h := needBrowser(t)
	tab, done := coldTab(t, h)
	defer done()
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `delete globalThis.Worker;`}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadPage(tab, h.url+"/?model=toy&prompt=The+cat"); err != nil {
		t.Fatal(err)
	}
	drawn(tab)
	if marks := evaluate[string](tab, startMarks); marks != "nexttoken:main" {
		t.Errorf("marks %q, want main's alone", marks)
	}
}

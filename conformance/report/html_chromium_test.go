// The browser test runs in the plain build only (make test's gotest runs it
// there, with the other tests of the Makefile's RACEFREEFILES):
// the page is rendered by one sequential function, and Chromium's own start
// is the same cost under the race detector, for nothing it could find.

//go:build !race

package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/internal/slowdown"
)

// TestHTMLInChromium renders the page in headless Chromium (Debian's
// chromium; .ci/run installs it), reads the DOM the browser built and
// takes a screenshot, in one browser start: the summaries per port and
// per clause area, every failing case with its description, clause links,
// ops, expected and got, and the timeline's SVG with the diverging op
// marked; the hostile text is text, never an element. Without Chromium
// the test fails: it never skips.
func TestHTMLInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is needed to render the HTML report (apt-get install chromium): %v", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "r.html")
	reps := htmlReports(t)
	if err := WriteHTML(file, reps...); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "r.png")
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1280,2400", "--screenshot="+shot, "--dump-dom", "file://"+file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := runWithin(cmd, slowdown.Scale(2*time.Minute)); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := stdout.String()
	failures := 0
	for _, c := range reps[1].Cases {
		if c.Verdict == vFail {
			failures++
			if !strings.Contains(dom, `id="p2-`+c.ID+`"`) {
				t.Errorf("the DOM lacks the failing case %s", c.ID)
			}
		}
	}
	if failures == 0 {
		t.Fatal("the lying port failed no case: nothing to render")
	}
	for _, want := range []string{
		`<table id="port-summary">`, `<td class="port-name">liar &lt;script&gt;`, `<table id="area-summary">`, `<td>LIM</td>`,
		`<svg class="timeline"`, `<g class="mark diverges">`, `<pre class="context">`, `<pre class="expected">{`, `<pre class="got">{`,
		`<td class="fields"><code>retry</code>`, `<a href="` + specURL + `#`, `<p class="description">`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM lacks %s", want)
		}
	}
	if strings.Count(dom, `<svg class="timeline"`) != failures {
		t.Errorf("%d timelines for %d failing cases", strings.Count(dom, `<svg class="timeline"`), failures)
	}
	if strings.Contains(dom, "<script") || strings.Contains(dom, "<img") {
		t.Error("the hostile port text became an element in the DOM")
	}
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("the screenshot %s: %d bytes, %v; want a PNG", shot, len(png), err)
	}
	if out := os.Getenv("LIMCHECK_HTML_SHOT"); out != "" { // to look at it: LIMCHECK_HTML_SHOT=/tmp/r.png
		os.WriteFile(out, png, 0o644)                       //nolint:errcheck // a convenience
		os.WriteFile(out+".html", mustRead(t, file), 0o644) //nolint:errcheck // a convenience
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/oracle"
)

// hostile is port text meant to run or load something if it were not
// escaped.
const hostile = `<script>alert(1)</script><img src="http://example.invalid/x.png">`

// htmlReports is two ports' reports over the lim vectors: the model,
// which passes, and a port that lies on lim_take's retry and whose name
// and stderr are hostile.
func htmlReports(t *testing.T) []*report {
	t.Helper()
	var lim []conformance.Case
	for _, c := range vectorCases(t) {
		if c.Component == oracle.Lim && c.Level == conformance.Core {
			lim = append(lim, c)
		}
	}
	good, err := protocol.RunCases(protocol.SubjectRunner{S: oracle.Model{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := protocol.RunCases(protocol.SubjectRunner{S: lying{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	for i := range bad {
		bad[i].Stderr = hostile + "\n"
	}
	return []*report{
		newReport(protocol.Hello{Name: "model", Version: "1", Components: []oracle.Component{oracle.Lim}}, good, nil, time.Second),
		newReport(protocol.Hello{Name: "liar " + hostile, Version: "2", Components: []oracle.Component{oracle.Lim}}, bad, nil, time.Second),
	}
}

// TestHTMLIsSelfContained checks the page without a browser: no script,
// no element that loads anything, a Content-Security-Policy that forbids
// loading, every link to spec.md, and the hostile port text escaped.
func TestHTMLIsSelfContained(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.html")
	if err := writeHTML(file, htmlReports(t)...); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, banned := range []string{"<script", "<img", "<link", "<iframe", "<object", "<embed", "@import", "url("} {
		if strings.Contains(strings.ToLower(page), banned) {
			t.Errorf("the page holds %q: it must load nothing and run nothing", banned)
		}
	}
	if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`) {
		t.Error("the page lacks its Content-Security-Policy")
	}
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], specURL+"#") {
			t.Errorf("the page refers to %q: only spec.md's anchors are linked", m[1])
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile port name is not shown escaped")
	}
}

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
	if err := writeHTML(file, reps...); err != nil {
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

// mustRead is the contents of file.
func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runWithin runs cmd, killing it after limit.
func runWithin(cmd *exec.Cmd, limit time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() }) //nolint:errcheck // it may have exited
	defer timer.Stop()
	return cmd.Wait()
}

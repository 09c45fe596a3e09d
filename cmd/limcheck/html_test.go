package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
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
		if !strings.HasPrefix(m[1], specURL+"#") && !strings.HasPrefix(m[1], repoURL+"spec-decisions.md#") {
			t.Errorf("the page refers to %q: only spec.md's and spec-decisions.md's anchors are linked", m[1])
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile port name is not shown escaped")
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

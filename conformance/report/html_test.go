package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// hostile is port text meant to run or load something if it were not
// escaped.
const hostile = `<script>alert(1)</script><img src="http://example.invalid/x.png">`

// htmlReports is two ports' reports over the lim vectors: the model,
// which passes, and a port that lies on lim_take's retry and whose name
// and stderr are hostile.
func htmlReports(t *testing.T) []*Run {
	t.Helper()
	var lim []conformance.Case
	for _, c := range vectorCases(t) {
		if c.Component == oracle.Lim && c.Level == conformance.Core {
			lim = append(lim, c)
		}
	}
	good, err := judge.RunCases(judge.SubjectRunner{S: oracle.Model{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := judge.RunCases(judge.SubjectRunner{S: lying{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	for i := range bad {
		bad[i].Stderr = hostile + "\n"
	}
	return []*Run{
		New(protocol.Hello{Name: "model", Version: "1", Components: []oracle.Component{oracle.Lim}}, good, nil, time.Second),
		New(protocol.Hello{Name: "liar " + hostile, Version: "2", Components: []oracle.Component{oracle.Lim}}, bad, nil, time.Second),
	}
}

// TestHTMLIsSelfContained checks the page without a browser: no script,
// no element that loads anything, a Content-Security-Policy that forbids
// loading, every link to spec.md, and the hostile port text escaped.
func TestHTMLIsSelfContained(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.html")
	if err := WriteHTML(file, htmlReports(t)...); err != nil {
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

// TestTimelineTextsClear checks the timeline's layout with long values: the
// first op's texts start right of the row labels ("model", "port"), two
// ops' texts never overlap, and the picture is wide enough for the last.
func TestTimelineTextsClear(t *testing.T) {
	long := strings.Repeat("w", 28)
	points := []point{
		{Index: 0, Kind: "admit", Now: "0", Want: long, Got: long, WantSt: "tks=1"},
		{Index: 1, Kind: "admit", Now: "0", Want: long, Got: "limited"},
		{Index: 2, Kind: "admit", Now: "1", Want: "pass", Got: long, Differs: true},
	}
	tl := draw(points)
	if left := tl.Marks[0].X - halfWidth(tl.Marks[0]); left < labelsEnd {
		t.Errorf("draw: the first op's texts start at x=%.0f, over the row labels (which end at %d)", left, labelsEnd)
	}
	for i := 1; i < len(tl.Marks); i++ {
		a, b := tl.Marks[i-1], tl.Marks[i]
		if a.X+halfWidth(a) > b.X-halfWidth(b) {
			t.Errorf("draw: the texts of ops %d (x=%.0f) and %d (x=%.0f) overlap", i-1, a.X, i, b.X)
		}
	}
	last := tl.Marks[len(tl.Marks)-1]
	if end := last.X + halfWidth(last); end > float64(tl.Width) {
		t.Errorf("draw: the last op's texts end at x=%.0f, past the picture's width %d", end, tl.Width)
	}
}

// TestHTMLAreasAndCounts checks the page's clause-area table and header: a
// port that ran no case of an area (it skipped them all, as a port does
// the cases of a component it does not implement) shows "-" in the skip
// class, not a green "0/0"; and one case is "1 case".
func TestHTMLAreasAndCounts(t *testing.T) {
	reps := htmlReports(t)
	var skipped []judge.CaseResult
	for _, c := range reps[0].Cases[:1] {
		cs, _ := findCase(t, c.ID)
		skipped = append(skipped, judge.CaseResult{Case: cs, Verdict: judge.Skip, Why: "does not implement lim"})
	}
	none := New(protocol.Hello{Name: "none", Version: "1"}, skipped, nil, time.Second)
	page := buildPage([]*Run{none})
	for _, a := range page.Areas {
		if got := a.Cells[0]; got.Text != "-" || got.Class != "skip" {
			t.Errorf("area %s of a port that ran none of its cases: %q in class %q, want \"-\" in class skip", a.Area, got.Text, got.Class)
		}
	}
	if got := areaCell(3, 4); got.Text != "3/4" || got.Class != "bad" {
		t.Errorf("areaCell(3, 4) = %+v, want 3/4 bad", got)
	}
	var b strings.Builder
	if err := htmlTemplate.Execute(&b, page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "&middot; 1 case</p>") {
		t.Errorf("the page's header does not say \"1 case\" for one case")
	}
	if !strings.Contains(b.String(), "paint-order: stroke; stroke: #fff") {
		t.Errorf("the timeline's texts have no halo: the divergence line would strike through them")
	}
}

// findCase is the vector of the given ID.
func findCase(t *testing.T, id string) (conformance.Case, bool) {
	t.Helper()
	for _, c := range vectorCases(t) {
		if c.ID == id {
			return c, true
		}
	}
	t.Fatalf("no vector %s", id)
	return conformance.Case{}, false
}

// TestMarkdownCellEscapes checks that port text in a summary's table cell
// starts no markup, link, tag or entity and ends no cell, and that a code
// span's text cannot end the span or the cell.
func TestMarkdownCellEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a|b", `a\|b`},
		{hostile, `&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src="http://example.invalid/x.png"&gt;`},
		{"*bold* _it_ `code` [link](x) ~~s~~ \\", `\*bold\* \_it\_ ` + "\\`code\\`" + ` \[link\](x) \~\~s\~\~ \\`},
		{"&amp;", "&amp;amp;"},
	} {
		if got := mdCell(tc.in); got != tc.want {
			t.Errorf("mdCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := mdCode("a`b|c"), `a'b\|c`; got != want {
		t.Errorf("mdCode(%q) = %q, want %q", "a`b|c", got, want)
	}
}

package report

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/limcheck/limcheck"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/internal/speccheck"
)

// repoURL is the folder of spec.md and spec-decisions.md: a clause link
// points at the file that defines the ID, at its heading.
const repoURL = "https://github.com/limcheck/limcheck/blob/main/"

// specURL is where a link to an ID the specification lacks points.
const specURL = repoURL + "spec.md"

// htmlPage is what the HTML report shows: one self-contained page (its
// style inline, no script, no external asset, a Content-Security-Policy
// that forbids loading any), every string escaped by html/template.
type htmlPage struct {
	Tool, Spec, Protocol string
	Ports                []htmlPort
	Areas                []htmlArea
	Failures             []htmlFailure
	Rows                 []htmlRow
}

type htmlPort struct {
	N                                    int
	Title                                string
	Passed, Failed, Skipped, Broken, Not int
	Status                               int
	Problem                              string // broken, incomplete
}

type htmlArea struct {
	Area  string
	Cells []htmlAreaCell // per port
}

// htmlAreaCell is one port's count in a clause area: passed/ran, in the
// class pass, bad (some case failed) or skip (the port ran none: "-").
type htmlAreaCell struct{ Text, Class string }

// areaCell is the cell of a port that passed of ran cases of an area.
func areaCell(passed, ran int) htmlAreaCell {
	switch {
	case ran == 0:
		return htmlAreaCell{Text: "-", Class: "skip"}
	case passed < ran:
		return htmlAreaCell{Text: fmt.Sprintf("%d/%d", passed, ran), Class: "bad"}
	}
	return htmlAreaCell{Text: fmt.Sprintf("%d/%d", passed, ran), Class: "pass"}
}

type htmlRow struct {
	ID      string
	Clauses []htmlClause
	Cells   []string
}

type htmlClause struct{ ID, URL, Text string }

type htmlFailure struct {
	Anchor, Port, ID, Verdict, Description, Why string
	Clauses                                     []htmlClause
	Context, Expected, Got                      string
	Fields                                      []string
	Stderr                                      string
	Timeline                                    *svgTimeline
}

// WriteHTML writes the reports, one port each, as one HTML page to file.
func WriteHTML(file string, reps ...*Run) error {
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, buildPage(reps)); err != nil {
		return fmt.Errorf("-html: %w", err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-html: %w", err)
	}
	return nil
}

// buildPage lays out the page of reps.
func buildPage(reps []*Run) htmlPage {
	links := clauseLinks()
	link := func(ids []string) []htmlClause {
		out := make([]htmlClause, len(ids))
		for i, id := range ids {
			out[i] = links[id]
			if out[i].ID == "" {
				out[i] = htmlClause{ID: id, URL: specURL}
			}
		}
		return out
	}
	page := htmlPage{Tool: ToolVersion(), Spec: SpecVersion(), Protocol: protocol.Protocol}
	for i, rep := range reps {
		s := rep.Summary
		page.Ports = append(page.Ports, htmlPort{N: i + 1, Title: rep.title(), Passed: s.Passed + s.ExpectedFailures, Failed: s.Failed + s.UnexpectedPasses,
			Skipped: s.Skipped, Broken: s.Broken, Not: s.NotRun, Status: rep.ExitStatus(), Problem: strings.TrimSpace(rep.Broken + " " + rep.Incomplete)})
		for _, c := range rep.Cases {
			if !Failing(c.Verdict) {
				continue
			}
			f := htmlFailure{Anchor: fmt.Sprintf("p%d-%s", i+1, c.ID), Port: rep.title(), ID: c.ID, Verdict: c.Verdict, Description: c.Description,
				Why: c.Why, Clauses: link(c.Clauses), Context: c.Context, Expected: string(c.Expected), Got: string(c.Got)}
			for _, d := range c.Differences {
				f.Fields = append(f.Fields, d.Field)
			}
			if c.Stderr != nil {
				f.Stderr = c.Stderr.text()
			}
			if len(c.Timeline) > 0 {
				tl := draw(c.Timeline)
				f.Timeline = &tl
			}
			page.Failures = append(page.Failures, f)
		}
	}
	for _, a := range areaCounts(reps) {
		row := htmlArea{Area: a.area}
		for _, pc := range a.ports {
			row.Cells = append(row.Cells, areaCell(pc.passed, pc.ran))
		}
		page.Areas = append(page.Areas, row)
	}
	for k, c := range reps[0].Cases {
		row := htmlRow{ID: c.ID, Clauses: link(c.Clauses)}
		for _, rep := range reps {
			row.Cells = append(row.Cells, rep.Cases[k].Verdict)
		}
		page.Rows = append(page.Rows, row)
	}
	return page
}

// clauseLinks maps every ID the specification defines to its link: the
// file that defines it (spec.md or spec-decisions.md) at the heading of the
// section that holds it, and its defining line as text.
func clauseLinks() map[string]htmlClause {
	out := map[string]htmlClause{}
	spec, err := speccheck.ReadSpec(limcheck.Files)
	if err != nil {
		return out
	}
	lines := map[string][]string{
		speccheck.SpecFile:      strings.Split(limcheck.Spec, "\n"),
		speccheck.DecisionsFile: strings.Split(limcheck.Decisions, "\n"),
	}
	for _, d := range spec.Defs {
		heading, text := definedAt(lines[d.File], d.Line)
		out[d.ID] = htmlClause{ID: d.ID, URL: repoURL + d.File + "#" + Slug(heading), Text: text}
	}
	return out
}

// definedAt returns the heading above line n (1-based) of lines and the
// line itself, trimmed.
func definedAt(lines []string, n int) (heading, text string) {
	for i := min(n-1, len(lines)-1); i >= 0; i-- {
		if strings.HasPrefix(lines[i], "#") {
			heading = lines[i]
			break
		}
	}
	if n-1 < len(lines) {
		text = strings.TrimSpace(lines[n-1])
	}
	return heading, text
}

// Slug is a Markdown heading's anchor as GitHub makes it: lowercase, the
// punctuation dropped but for - and _, spaces as -.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "#"))) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// areaCount is how many cases of one clause area each port passed, of
// those it ran.
type areaCount struct {
	area  string
	ports []struct{ passed, ran int }
}

// areaCounts counts, for every clause area the cases list (a case counts
// in every area of its clauses, once), the cases each port passed of
// those it ran.
func areaCounts(reps []*Run) []areaCount {
	var areas []string
	for _, c := range reps[0].Cases {
		for _, id := range c.Clauses {
			if a := area(id); !slices.Contains(areas, a) {
				areas = append(areas, a)
			}
		}
	}
	slices.Sort(areas)
	out := make([]areaCount, len(areas))
	for i, a := range areas {
		out[i] = areaCount{area: a, ports: make([]struct{ passed, ran int }, len(reps))}
		for j, rep := range reps {
			pc := &out[i].ports[j]
			for _, c := range rep.Cases {
				if !slices.ContainsFunc(c.Clauses, func(id string) bool { return area(id) == a }) {
					continue
				}
				switch c.Verdict {
				case vPass, vXFail:
					pc.passed++
					pc.ran++
				case vFail, vXPass, vBroken:
					pc.ran++
				}
			}
		}
	}
	return out
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"lower":  strings.ToLower,
	"plural": Plural,
	"cls": func(v string) string {
		return map[string]string{vPass: "pass", vXFail: "pass", vFail: "fail", vXPass: "fail", vBroken: "broken", vSkip: "skip"}[v] + " cell"
	},
}).Parse(htmlSource))

const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>limcheck report: spec {{.Spec}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
.pass { background: #e3f6e3; } .fail { background: #fbe0e0; } .broken { background: #f5d6f5; } .skip { background: #eee; }
.bad { background: #fbe0e0; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; white-space: pre-wrap; }
.failure { border: 1px solid #e0a0a0; border-radius: 4px; padding: .2em 1em 1em; margin: 1em 0; }
.clauses a { margin-right: .5em; }
svg text { font: 11px monospace; paint-order: stroke; stroke: #fff; stroke-width: 4px; stroke-linejoin: round; }
.tl { overflow-x: auto; }
</style>
</head>
<body>
<h1>limcheck report</h1>
<p>limcheck {{.Tool}} &middot; spec <b>{{.Spec}}</b> &middot; protocol {{.Protocol}} &middot; {{plural (len .Rows) "case"}}</p>

<h2 id="ports">Ports</h2>
<table id="port-summary">
<tr><th>#</th><th>port</th><th>passed</th><th>failed</th><th>skipped</th><th>broken</th><th>not run</th><th>status</th><th>problem</th></tr>
{{range .Ports}}<tr class="{{if eq .Status 0}}pass{{else}}fail{{end}}"><td>[{{.N}}]</td><td class="port-name">{{.Title}}</td><td>{{.Passed}}</td><td>{{.Failed}}</td><td>{{.Skipped}}</td><td>{{.Broken}}</td><td>{{.Not}}</td><td>{{.Status}}</td><td>{{.Problem}}</td></tr>
{{end}}</table>

<h2 id="areas">By clause area</h2>
<p>Cases passed of those run, per port; a case counts in every area of its clauses; - where the port ran none (it skipped them, or does not implement their component).</p>
<table id="area-summary">
<tr><th>area</th>{{range .Ports}}<th>[{{.N}}]</th>{{end}}</tr>
{{range .Areas}}<tr><td>{{.Area}}</td>{{range .Cells}}<td class="{{.Class}}">{{.Text}}</td>{{end}}</tr>
{{end}}</table>

<h2 id="failures">Failures ({{len .Failures}})</h2>
{{range .Failures}}<div class="failure" id="{{.Anchor}}">
<h3><span class="{{cls .Verdict}}">{{.Verdict}}</span> <code class="case-id">{{.ID}}</code> on {{.Port}}</h3>
<p class="description">{{.Description}}</p>
<p class="clauses">clauses: {{range .Clauses}}<a href="{{.URL}}" title="{{.Text}}">{{.ID}}</a>{{end}}</p>
<p class="why">{{.Why}}</p>
{{if .Timeline}}{{with .Timeline}}<div class="tl"><svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="timeline of the ops up to the divergence">
<text x="4" y="84">model</text><text x="4" y="144">port</text>
<line x1="80" y1="110" x2="{{.Width}}" y2="110" stroke="#999"/>
{{range .Marks}}<g class="mark{{if .Differs}} diverges{{end}}">
<line x1="{{.X}}" y1="34" x2="{{.X}}" y2="{{.Bott}}" stroke="{{if .Differs}}#c00{{else}}#bbb{{end}}" stroke-width="{{if .Differs}}2{{else}}1{{end}}"/>
<text x="{{.X}}" y="{{.LabelY}}" text-anchor="middle">{{.Label}}</text>
<circle cx="{{.X}}" cy="66" r="5" fill="#2a7"/><text x="{{.X}}" y="{{.WantY}}" text-anchor="middle">{{.Want}}</text><text x="{{.X}}" y="{{.WantStY}}" text-anchor="middle" fill="#555">{{.WantSt}}</text>
<circle cx="{{.X}}" cy="126" r="5" fill="{{if .Differs}}#c00{{else}}#2a7{{end}}"/><text x="{{.X}}" y="{{.GotY}}" text-anchor="middle">{{.Got}}</text><text x="{{.X}}" y="{{.GotStY}}" text-anchor="middle" fill="#555">{{.GotSt}}</text>
</g>
{{end}}{{range .Axis}}<text x="{{.X}}" y="{{.Y}}" text-anchor="middle" fill="#333">{{.Text}}</text>
{{end}}</svg></div>{{end}}{{end}}
{{if .Context}}<p>the ops from a fresh instance up to the one that differs (marked &gt;):</p><pre class="context">{{.Context}}</pre>{{end}}
{{if or .Expected .Got}}<table class="results"><tr><th>expected (model)</th><td><pre class="expected">{{.Expected}}</pre></td></tr>
<tr><th>got</th><td><pre class="got">{{.Got}}</pre></td></tr>
{{if .Fields}}<tr><th>differs</th><td class="fields">{{range .Fields}}<code>{{.}}</code> {{end}}</td></tr>{{end}}</table>{{end}}
{{if .Stderr}}<pre class="stderr">{{.Stderr}}</pre>{{end}}
</div>
{{else}}<p id="no-failures">No case failed.</p>
{{end}}

<h2 id="cases">Every case</h2>
<table id="cases-table">
<tr><th>case</th>{{range .Ports}}<th>[{{.N}}]</th>{{end}}<th>clauses</th></tr>
{{range .Rows}}<tr><td><code>{{.ID}}</code></td>{{range .Cells}}<td class="{{cls .}}">{{.}}</td>{{end}}<td class="clauses">{{range .Clauses}}<a href="{{.URL}}" title="{{.Text}}">{{.ID}}</a>{{end}}</td></tr>
{{end}}</table>
</body>
</html>
`

package report

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// point is one op of a failing case's timeline, up to the diverging one:
// its time, and the model's and the port's results and state, short.
type point struct {
	Index          int
	Kind           string
	Now            string // the op's now ("" for an op without one)
	Want, Got      string // the results, short: verdict, ok, or the first fields
	WantSt, GotSt  string // the bucket or window state the result exposes (tks, remaining, count, until)
	Differs, NoGot bool
}

// timeline is the points of the case c's ops up to the one at (the
// divergence), the last maxContextOps+1 of them, from the expected
// outcome and got; nil for a divergence at open.
func timeline(c conformance.Case, at int, got oracle.Outcome) []point {
	if at < 0 || at >= len(c.Ops) {
		return nil
	}
	want := c.Expected()
	var out []point
	for i := max(0, at-maxContextOps); i <= at; i++ {
		op := c.Ops[i].Op
		p := point{Index: i, Kind: Clean(string(op.Kind)), Now: Clean(op.Now.String())}
		if op.Now.IsZero() {
			p.Now = ""
		}
		var w, g oracle.Result
		if i < len(want.Results) {
			w = want.Results[i]
		}
		if i < len(got.Results) {
			g = got.Results[i]
		}
		p.Differs = i == at
		p.Want, p.WantSt = short(w, g, p.Differs), state(w)
		p.Got, p.GotSt = short(g, w, p.Differs), state(g)
		if i >= len(got.Results) {
			p.NoGot, p.Got, p.GotSt = true, "(no result)", ""
		}
		out = append(out, p)
	}
	return out
}

// short is a result in a few characters: its verdict or ok, or its first
// field; at the diverging op (diff), the fields in which the two sides
// differ, so that the picture shows where they part.
func short(r, other oracle.Result, diff bool) string {
	fields := resultFields(r)
	if diff {
		if parts := keyValues(oracle.DiffFields(noResponse(r), noResponse(other))); len(parts) > 0 {
			return cut(strings.Join(parts, " "), 28)
		}
	}
	switch {
	case r.Error != "":
		return "error " + Clean(string(r.Error))
	case r.Verdict != "":
		return Clean(r.Verdict)
	case !r.OK.IsZero():
		return "ok=" + r.OK.String()
	case len(fields) > 0:
		return cut(fields[0], 16)
	}
	return "{}"
}

// resultFields is r's fields as key=value, in JSON order, the response
// left out (it is long; the differing fields show it).
func resultFields(r oracle.Result) []string {
	return keyValues(oracle.DiffFields(noResponse(r), oracle.Result{}))
}

// keyValues is the fields fs on their want side, as key=value: those
// that side has.
func keyValues(fs []oracle.Field) []string {
	var out []string
	for _, f := range fs {
		if v := fieldJSON(f.Want); v != nil {
			out = append(out, f.Name+"="+strings.Trim(string(v), `"`))
		}
	}
	return out
}

// noResponse is r without its response.
func noResponse(r oracle.Result) oracle.Result {
	r.Response = nil
	return r
}

// cut is s in at most n bytes, "..." marking a cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 3 && !utf8.RuneStart(s[n-3]) {
		n--
	}
	return s[:n-3] + "..."
}

// state is what a result exposes of the bucket or window: tks for a lim
// bucket, remaining, count or until for a throttle window.
func state(r oracle.Result) string {
	var parts []string
	for _, f := range []struct {
		name string
		n    oracle.Num
	}{{"tks", r.Tks}, {"remaining", r.Remaining}, {"count", r.Count}, {"until", r.Until}} {
		if !f.n.IsZero() {
			parts = append(parts, f.name+"="+f.n.String())
		}
	}
	return strings.Join(parts, " ")
}

// svgTimeline is the timeline drawn: time on the x axis where the ops'
// times run forward (op order where they do not, as in a fuzz trace, each
// op labelled with its time), ops close in time kept apart, the model's results on the upper row and the port's
// on the lower, the diverging op marked, and the state under each.
type svgTimeline struct {
	Width, Height int
	Marks         []svgMark
	Axis          []svgTick
}

type svgMark struct {
	X                     float64
	Label                 string // op index and kind
	Now                   string // the op's time, drawn on the axis
	Want, Got             string
	WantSt, GotSt         string
	Differs               bool
	LabelY, WantY, GotY   int
	WantStY, GotStY, Bott int
}

type svgTick struct {
	X    float64
	Y    int // alternating, so that long times do not overlap
	Text string
}

// draw lays out the points of a timeline.
func draw(points []point) svgTimeline {
	const left, right, step, minGap = 90, 60, 130, 120
	w := left + right + step*max(len(points)-1, 1)
	tl := svgTimeline{Width: w, Height: 210}
	lo, hi, timed := math.Inf(1), math.Inf(-1), true
	for _, p := range points {
		if v, ok := nowValue(p.Now); ok {
			timed = timed && v >= hi // time runs forward: the axis is time; else op order
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	timed = timed && hi > lo
	prev := lo
	for i, p := range points {
		x := float64(left + step*i)
		if v, ok := nowValue(p.Now); timed && ok {
			x, prev = left+(v-lo)/(hi-lo)*float64(w-left-right), v
		} else if timed {
			x = left + (prev-lo)/(hi-lo)*float64(w-left-right)
		}
		tl.Marks = append(tl.Marks, svgMark{X: x, Label: fmt.Sprintf("%d %s", p.Index, p.Kind), Now: p.Now, Want: p.Want, Got: p.Got, WantSt: p.WantSt, GotSt: p.GotSt,
			Differs: p.Differs, LabelY: 20 + 14*(i%3), WantY: 80, WantStY: 96, GotY: 140, GotStY: 156, Bott: 175})
		if i > 0 { // ops at one time, or close: side by side, in order, their texts apart
			x = max(x, tl.Marks[i-1].X+minGap, tl.Marks[i-1].X+halfWidth(tl.Marks[i-1])+halfWidth(tl.Marks[i])+textGap)
		} else { // the first op's texts clear of the row labels
			x = max(x, labelsEnd+halfWidth(tl.Marks[0]))
		}
		tl.Marks[i].X = x
		if p.Now != "" {
			tl.Axis = append(tl.Axis, svgTick{X: x, Y: 190 + 13*(len(tl.Axis)%2), Text: "t=" + p.Now})
		}
	}
	if n := len(tl.Marks); n > 0 {
		last := tl.Marks[n-1]
		tl.Width = max(tl.Width, int(last.X)+right+40, int(last.X+halfWidth(last))+textGap)
	}
	return tl
}

// The timeline's text metrics: the width of a character of its 11px
// monospace font (0.6 em, rounded up), the end of the row labels ("model",
// "port") and the room kept between two ops' texts.
const (
	charWidth = 7
	labelsEnd = 52
	textGap   = 14
)

// halfWidth is half the width of m's widest text, its time's included:
// texts are centred on the op's x.
func halfWidth(m svgMark) float64 {
	n := 0
	for _, t := range []string{m.Label, m.Want, m.Got, m.WantSt, m.GotSt, "t=" + m.Now} {
		n = max(n, utf8.RuneCountInString(t))
	}
	return float64(n*charWidth) / 2
}

// nowValue is a time as a float, for the x axis.
func nowValue(s string) (float64, bool) {
	var v float64
	if s == "" {
		return 0, false
	}
	_, err := fmt.Sscan(s, &v)
	return v, err == nil
}

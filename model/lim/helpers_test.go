package lim_test

import (
	"fmt"
	"math"
	"regexp"
	"testing"

	"github.com/limcheck/limcheck/model/lim"
)

const (
	maxI = math.MaxInt64
	minI = math.MinInt64
)

// Named instants for step tables: each table maps t0..t9 to its own ticks
// (ticks := [...]int64{t0: 0, t1: 9, ...}), and a step says at: t3.
const (
	t0 = iota
	t1
	t2
	t3
	t4
	t5
	t6
	t7
	t8
	t9
)

var clauseRE = regexp.MustCompile(`^LIM-([1-9]|1[0-8])$`)

// checkRow stops the test when a table row does not say which clause it
// exercises and why.
func checkRow(t *testing.T, row int, clause, reason string) {
	t.Helper()
	if !clauseRE.MatchString(clause) || reason == "" {
		t.Fatalf("row %d: clause %q, reason %q: every row needs a LIM clause (1..18) and a reason", row, clause, reason)
	}
}

func fmtBkt(b lim.Bucket) string { return fmt.Sprintf("{tks:%d last:%d}", b.Tks, b.Last) }

func fmtCfg(c lim.Config) string {
	return fmt.Sprintf("{ok:%d err:%d cap:%d refil:%d ivl:%d maxif:%d}", c.OK, c.Err, c.Cap, c.Refil, c.Ivl, c.Maxif)
}

func fmtTake(r lim.TakeResult) string {
	return fmt.Sprintf("{ok:%d retry:%d tks:%d last:%d}", r.OK, r.Retry, r.Tks, r.Last)
}

// cfg is lim.NewConfig with maxif 1, for tables where maxif plays no part.
func cfg(cap, refil, ivl int64) lim.Config { return lim.NewConfig(cap, refil, ivl, 1) }

// res builds a TakeResult in the order the spec writes it: {ok, retry, tks, last}.
func res(ok, retry, tks, last int64) lim.TakeResult {
	return lim.TakeResult{OK: ok, Retry: retry, Tks: tks, Last: last}
}

func bkt(tks, last int64) lim.Bucket { return lim.Bucket{Tks: tks, Last: last} }

package redisgate

import (
	"regexp"
	"strings"
	"testing"
)

// TestJoinArith checks where JoinArith puts the arithmetic: after a
// shebang line, which Redis reads only as a script's first line, else in
// front.
func TestJoinArith(t *testing.T) {
	for _, tc := range []struct {
		script, want, reason string
	}{
		{"#!lua\nB\n", "#!lua\nA\nB\n", "the gate scripts' shebang stays first"},
		{"#!lua flags=no-writes\nB", "#!lua flags=no-writes\nA\nB", "a shebang's flags stay with it"},
		{"#!lua", "#!lua\nA\n", "a shebang alone gets its line end"},
		{"B\n", "A\nB\n", "no shebang: the arithmetic goes in front"},
		{"", "A\n", "an empty script is the arithmetic alone"},
	} {
		if got := JoinArith("A\n", tc.script); got != tc.want {
			t.Errorf("JoinArith(%q, %q) = %q, want %q (%s)", "A\n", tc.script, got, tc.want, tc.reason)
		}
	}
}

// TestGateScriptsShareOneArithmetic checks that lua/admit.lua and
// lua/spread.lua start with their shebang, define none of lua/arith.lua's
// functions again (no second copy to drift), and that the text loaded for
// each holds lua/arith.lua once, right after the shebang.
func TestGateScriptsShareOneArithmetic(t *testing.T) {
	defs := regexp.MustCompile(`(?m)^\s*local function (\w+)`).FindAllStringSubmatch(arithLua, -1)
	if len(defs) < 4 {
		t.Fatalf("lua/arith.lua defines %d functions, want refill, charge (and its subqr), take, lifetime", len(defs))
	}
	for name, src := range map[string]string{"lua/admit.lua": admitLua, "lua/spread.lua": spreadLua} {
		if !strings.HasPrefix(src, "#!lua\n") {
			t.Errorf("%s does not start with its #!lua line", name)
		}
		for _, d := range defs {
			if strings.Contains(src, "local function "+d[1]+"(") {
				t.Errorf("%s defines %s again: lua/arith.lua's copy is the one", name, d[1])
			}
		}
		joined := JoinArith(arithLua, src)
		if !strings.HasPrefix(joined, "#!lua\n"+arithLua) || strings.Count(joined, arithLua) != 1 {
			t.Errorf("JoinArith(arith, %s) does not hold lua/arith.lua once, after its first line", name)
		}
	}
}

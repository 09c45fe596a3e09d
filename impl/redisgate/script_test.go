package redisgate

import (
	"regexp"
	"strings"
	"testing"
)

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

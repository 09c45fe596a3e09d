package redisgate

import (
	_ "embed"

	"github.com/limcheck/limcheck/impl/internal/luajoin"
)

// arithLua is the gate scripts' shared arithmetic (refill, the eviction's
// charge, the take, the TTL), which JoinArith joins into lua/admit.lua and
// lua/spread.lua.
//
//go:embed lua/arith.lua
var arithLua string

// JoinArith returns the text the server runs for script, a script of this
// package that calls the shared arithmetic, arith (lua/arith.lua's text):
// script's first line when it is a shebang ("#!lua ..."), which Redis
// reads only there, then arith, then the rest of script. Each EVALSHA so
// names one self-contained script. The gate loads lua/admit.lua and
// lua/spread.lua this way; a test that plants a bug in either file or in
// lua/arith.lua joins the texts the same way to find the loaded script by
// the SHA-1 of its text.
func JoinArith(arith, script string) string { return luajoin.Join(arith, script) }

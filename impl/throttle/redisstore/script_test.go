package redisstore

import (
	"strings"
	"testing"
)

// TestStoreScriptsShareOneLib checks that every script of the store that
// compares stamps calls lua/lib.lua's lt and none defines it again (no
// second copy to drift), that lua/clearfailures.lua, loaded without the
// lib, calls none of it, and that each loaded text holds the lib once,
// right after the script's shebang.
func TestStoreScriptsShareOneLib(t *testing.T) {
	if !strings.Contains(libLua, "local function lt(") {
		t.Fatalf("lua/lib.lua does not define lt")
	}
	for name, src := range map[string]string{"add": addLua, "check": checkLua, "ban": banLua, "purge": purgeLua, "reserve": reserveLua} {
		if strings.Contains(src, "local function lt(") || !strings.Contains(src, "lt(") {
			t.Errorf("lua/%s.lua defines lt again, or calls it not at all", name)
		}
		head, _, _ := strings.Cut(src, "\n")
		joined := JoinLib(libLua, src)
		if !strings.HasPrefix(head, "#!lua") || !strings.HasPrefix(joined, head+"\n"+libLua) || strings.Count(joined, libLua) != 1 {
			t.Errorf("JoinLib(lib, lua/%s.lua) does not hold lua/lib.lua once, after the #!lua line", name)
		}
	}
	if strings.Contains(clearFailuresLua, "lt(") {
		t.Errorf("lua/clearfailures.lua calls lt, but the store loads it without lua/lib.lua")
	}
}

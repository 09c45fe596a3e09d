package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// rueidisScripter runs redis_rate's scripts over a rueidis client: the
// methods of go-redis's client that redis_rate.NewLimiter needs, each one
// rueidis command, its reply handed back in a go-redis Cmd as go-redis
// would have read it (integers as int64, bulk strings as string, arrays as
// []any; a nil reply as goredis.Nil, NOSCRIPT as goredis.ErrNoScript). So redis_rate and limcheck's gate
// reach the server through the same client, with the same
// auto-pipelining: what the server spends reading calls and writing
// replies is then alike for both, and only the scripts differ.
type rueidisScripter struct{ c rueidis.Client }

// args are redis_rate's arguments as go-redis writes them.
func (r rueidisScripter) args(keys []string, args []any) []string {
	out := append([]string{strconv.Itoa(len(keys))}, keys...)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			out = append(out, v)
		case int:
			out = append(out, strconv.Itoa(v))
		case int64:
			out = append(out, strconv.FormatInt(v, 10))
		case float64:
			out = append(out, strconv.FormatFloat(v, 'f', -1, 64))
		default:
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}

// do runs a script command and fills a go-redis Cmd with its reply.
func (r rueidisScripter) do(ctx context.Context, cmd, script string, keys []string, args []any) *goredis.Cmd {
	c := goredis.NewCmd(ctx)
	res := r.c.Do(ctx, r.c.B().Arbitrary(cmd).Args(script).Args(r.args(keys, args)...).Build())
	if err := res.Error(); err != nil {
		if rueidis.IsRedisNil(err) {
			err = goredis.Nil
		} else if strings.HasPrefix(err.Error(), "NOSCRIPT") {
			err = goredis.ErrNoScript // go-redis's Script.Run falls back to EVAL on it
		}
		c.SetErr(err)
		return c
	}
	v, err := res.ToAny()
	if err != nil {
		c.SetErr(err)
		return c
	}
	c.SetVal(v)
	return c
}

// Eval is EVAL.
func (r rueidisScripter) Eval(ctx context.Context, script string, keys []string, args ...any) *goredis.Cmd {
	return r.do(ctx, "EVAL", script, keys, args)
}

// EvalSha is EVALSHA.
func (r rueidisScripter) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *goredis.Cmd {
	return r.do(ctx, "EVALSHA", sha1, keys, args)
}

// EvalRO is EVAL_RO.
func (r rueidisScripter) EvalRO(ctx context.Context, script string, keys []string, args ...any) *goredis.Cmd {
	return r.do(ctx, "EVAL_RO", script, keys, args)
}

// EvalShaRO is EVALSHA_RO.
func (r rueidisScripter) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *goredis.Cmd {
	return r.do(ctx, "EVALSHA_RO", sha1, keys, args)
}

// ScriptExists is SCRIPT EXISTS.
func (r rueidisScripter) ScriptExists(ctx context.Context, hashes ...string) *goredis.BoolSliceCmd {
	c := goredis.NewBoolSliceCmd(ctx)
	vs, err := r.c.Do(ctx, r.c.B().ScriptExists().Sha1(hashes...).Build()).AsBoolSlice()
	if err != nil {
		c.SetErr(err)
	}
	c.SetVal(vs)
	return c
}

// ScriptLoad is SCRIPT LOAD.
func (r rueidisScripter) ScriptLoad(ctx context.Context, script string) *goredis.StringCmd {
	c := goredis.NewStringCmd(ctx)
	v, err := r.c.Do(ctx, r.c.B().ScriptLoad().Script(script).Build()).ToString()
	if err != nil {
		c.SetErr(err)
	}
	c.SetVal(v)
	return c
}

// Del is DEL.
func (r rueidisScripter) Del(ctx context.Context, keys ...string) *goredis.IntCmd {
	c := goredis.NewIntCmd(ctx)
	v, err := r.c.Do(ctx, r.c.B().Del().Key(keys...).Build()).AsInt64()
	if err != nil {
		c.SetErr(err)
	}
	c.SetVal(v)
	return c
}

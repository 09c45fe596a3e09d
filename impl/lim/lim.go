package lim

// ErrOK is the seed's lim_err_ok(): the error code of a valid config.
const ErrOK int64 = 0

// ErrParam is the seed's lim_err_param(): the one error code for any parameter
// of lim_cfg that is <= 0.
const ErrParam int64 = 1

// Config is the seed's LimCfg, built by [NewConfig] and read through its
// getters. It is opaque so that its precomputed parts can never disagree with
// its parameters. The zero Config is invalid (OK 0, Err 0). A Config is an
// immutable value: safe to copy and to share between goroutines.
type Config struct {
	cap, refil, ivl, maxif int64
	err                    int64 // ErrParam when built with a bad parameter
	ok                     bool
	ivlDiv, refilDiv       divider // set only when ok
}

// NewConfig is the seed's lim_cfg(cap, refil, ivl, maxif): OK 1 when every
// parameter is >= 1, else OK 0 with Err ErrParam, carrying the parameters as
// given. It never fails.
func NewConfig(cap, refil, ivl, maxif int64) Config {
	c := Config{cap: cap, refil: refil, ivl: ivl, maxif: maxif, err: ErrParam}
	if cap >= 1 && refil >= 1 && ivl >= 1 && maxif >= 1 {
		c.ok, c.err = true, ErrOK
		c.ivlDiv = newDivider(uint64(ivl))
		c.refilDiv = newDivider(uint64(refil))
	}
	return c
}

// OK is the seed's lcfg_ok: 1 for a valid config, else 0.
func (c *Config) OK() int64 { return b2i(c.ok) }

// Err is the seed's lcfg_err: ErrOK for a config built valid, ErrParam for one
// built with a bad parameter, and ErrOK for the zero Config.
func (c *Config) Err() int64 { return c.err }

// Cap is the seed's lcfg_cap: the bucket capacity in tokens.
func (c *Config) Cap() int64 { return c.cap }

// Refil is the seed's lcfg_refil: tokens added per whole interval.
func (c *Config) Refil() int64 { return c.refil }

// Ivl is the seed's lcfg_ivl: the refill interval in ticks.
func (c *Config) Ivl() int64 { return c.ivl }

// Maxif is the seed's lcfg_maxif: the most requests in flight.
func (c *Config) Maxif() int64 { return c.maxif }

// Valid reports whether [Config.Take] works with c (spec LIM-4).
func (c *Config) Valid() bool { return c.ok }

// Bucket is the seed's LimBkt: the token count and the tick of the last whole
// refill step. Its fields are the seed's getters lb_tks and lb_last.
type Bucket struct {
	Tks  int64
	Last int64
}

// MakeBucket is the seed's lim_bkt(tks, last).
func MakeBucket(tks, last int64) Bucket { return Bucket{Tks: tks, Last: last} }

// NewBucket is the seed's lim_bkt_new(cap, now): a full bucket.
func NewBucket(cap, now int64) Bucket { return Bucket{Tks: cap, Last: now} }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

package lim

// ErrOK is the seed's lim_err_ok(): the error code of a valid config.
// spec LIM-2: "lim_err_ok() = 0 and lim_err_param() = 1."
const ErrOK int64 = 0

// ErrParam is the seed's lim_err_param(): the one error code for any parameter
// of lim_cfg that is <= 0.
const ErrParam int64 = 1

// Config is the seed's LimCfg. Its fields are the seed's getters lcfg_ok,
// lcfg_err, lcfg_cap, lcfg_refil, lcfg_ivl and lcfg_maxif. Build one with
// [NewConfig]; the zero Config is invalid.
type Config struct {
	OK    int64 `json:"ok"`    // 1 when every parameter is > 0, else 0
	Err   int64 `json:"err"`   // ErrOK or ErrParam
	Cap   int64 `json:"cap"`   // bucket capacity: the burst, in tokens
	Refil int64 `json:"refil"` // tokens added per whole interval
	Ivl   int64 `json:"ivl"`   // refill interval, in ticks
	Maxif int64 `json:"maxif"` // most requests in flight at once
}

// NewConfig is the seed's lim_cfg(cap, refil, ivl, maxif). It never fails: a
// parameter <= 0 gives a Config with OK 0 and Err ErrParam, carrying the
// parameters as given.
func NewConfig(cap, refil, ivl, maxif int64) Config {
	// spec LIM-3: "ok = 1 and err = 0 iff all four parameters are >= 1."
	c := Config{OK: 0, Err: ErrParam, Cap: cap, Refil: refil, Ivl: ivl, Maxif: maxif}
	if cap >= 1 && refil >= 1 && ivl >= 1 && maxif >= 1 {
		c.OK, c.Err = 1, ErrOK
	}
	return c
}

// Valid reports whether c is a config [Take] works with: exactly the configs that
// NewConfig returns with OK 1.
func (c Config) Valid() bool {
	// spec LIM-4: "A config is valid iff ok = 1, err = 0 and cap, refil, ivl and maxif are all >= 1."
	return c.OK == 1 && c.Err == ErrOK &&
		c.Cap >= 1 && c.Refil >= 1 && c.Ivl >= 1 && c.Maxif >= 1
}

// Bucket is the seed's LimBkt: the token count and the tick of the last whole
// refill step. Its fields are the seed's getters lb_tks and lb_last.
type Bucket struct {
	Tks  int64 `json:"tks"`
	Last int64 `json:"last"`
}

// MakeBucket is the seed's lim_bkt(tks, last): the value constructor the
// composition layer uses to rebuild a bucket from stored fields.
func MakeBucket(tks, last int64) Bucket {
	// spec LIM-5: "lim_bkt(tks, last) returns a bucket holding exactly tks and last."
	return Bucket{Tks: tks, Last: last}
}

// NewBucket is the seed's lim_bkt_new(cap, now): a full bucket whose last
// refill step is now.
func NewBucket(cap, now int64) Bucket {
	// spec LIM-6: "lim_bkt_new(cap, now) = {tks: cap, last: now}."
	return Bucket{Tks: cap, Last: now}
}

package subject

import "github.com/limcheck/limcheck/oracle"

// gateSeed is the case's seed (spec VEC-9), for the Redis gate's Config.
func gateSeed(cfg oracle.Config) ([16]byte, error) {
	s, err := cfg.GateSeed()
	return [16]byte(s), err
}

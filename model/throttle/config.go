package throttle

import "fmt"

// Error is the type of the package's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

// ErrConfig is wrapped by every error [New] and [Config.Validate] return for an
// invalid configuration.
const ErrConfig Error = "throttle: invalid config"

// Defaults of [DefaultConfig]. DefaultBanSecs is the seed's; the other two are
// ours (spec.md, decision register).
const (
	DefaultThreshold  uint64 = 5
	DefaultWindowSecs uint64 = 900
	DefaultBanSecs    uint64 = 900
)

// Config is the seed's ThrottleConfig.
type Config struct {
	Threshold  uint64 `json:"threshold"`   // the failure that triggers a ban: the Threshold-th in the window
	WindowSecs uint64 `json:"window_secs"` // how long a failure counts, in seconds
	BanSecs    uint64 `json:"ban_secs"`    // how long a ban lasts, in seconds
}

// DefaultConfig returns threshold 5, window 900 s and ban 900 s.
func DefaultConfig() Config {
	// spec THR-2: "The default config is threshold 5, window_secs 900, ban_secs 900."
	return Config{Threshold: DefaultThreshold, WindowSecs: DefaultWindowSecs, BanSecs: DefaultBanSecs}
}

// Validate returns nil for a valid config, else an error wrapping [ErrConfig]
// that names the first field that is 0.
func (c Config) Validate() error {
	// spec THR-1: "A config is valid iff threshold, window_secs and ban_secs are all >= 1."
	switch {
	case c.Threshold < 1:
		return fmt.Errorf("%w: threshold is 0", ErrConfig)
	case c.WindowSecs < 1:
		return fmt.Errorf("%w: window_secs is 0", ErrConfig)
	case c.BanSecs < 1:
		return fmt.Errorf("%w: ban_secs is 0", ErrConfig)
	}
	return nil
}

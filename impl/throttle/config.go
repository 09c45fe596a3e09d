package throttle

import "fmt"

// Error is the type of the package's sentinel errors. Values are immutable
// constants, safe for concurrent use.
type Error string

// Error returns the message.
func (e Error) Error() string { return string(e) }

// Sentinel errors. Test with errors.Is.
const (
	// ErrConfig is wrapped by every error [New], [Config.Validate] and
	// [NewMemStore] return for an invalid configuration.
	ErrConfig Error = "throttle: invalid config"
	// ErrFault is the cause of every error a [FaultStore] injects.
	ErrFault Error = "throttle: injected store fault"
	// ErrFull is the cause of the error a [MemStore] returns when an
	// operation would start tracking a key while MaxKeys keys are tracked.
	ErrFull Error = "throttle: store full"
)

// Defaults of [DefaultConfig] (spec THR-2).
const (
	DefaultThreshold  uint64 = 5   // failures in the window that ban
	DefaultWindowSecs uint64 = 900 // seconds a failure counts
	DefaultBanSecs    uint64 = 900 // seconds a ban lasts
)

// Config is the seed's ThrottleConfig. A value type: safe to copy and share.
type Config struct {
	Threshold  uint64 `json:"threshold"`   // the failure that triggers a ban: the Threshold-th in the window
	WindowSecs uint64 `json:"window_secs"` // how long a failure counts, in seconds
	BanSecs    uint64 `json:"ban_secs"`    // how long a ban lasts, in seconds
}

// DefaultConfig returns threshold 5, window 900 s and ban 900 s (spec THR-2).
func DefaultConfig() Config {
	return Config{Threshold: DefaultThreshold, WindowSecs: DefaultWindowSecs, BanSecs: DefaultBanSecs}
}

// Validate returns nil for a valid config (spec THR-1: all three fields >= 1),
// else an error wrapping [ErrConfig] that names the first field that is 0.
func (c Config) Validate() error {
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

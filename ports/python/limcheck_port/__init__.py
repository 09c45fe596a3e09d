"""limcheck reference port (Python): lim, gate and throttle from spec.md alone.

open_component(component, config) builds a fresh subject whose do(op) takes one JSON op
object of the conformance vectors and returns its JSON result object."""

from .gate import Gate, open_gate
from .lim import Lim, open_lim
from .throttle import ExactStore, FaultStore, Throttle, open_throttle
from .wire import ConfigError, OpError, StoreError

VERSION = "3.2.0"  # the port's version; it follows the spec.md version it implements

COMPONENTS = {
    "lim": open_lim,
    "gate": open_gate,
    "throttle": lambda config: open_throttle(config, faults=False),
    "throttle_faults": lambda config: open_throttle(config, faults=True),
}


def open_component(component, config):
    """A fresh subject; raises ConfigError when the config is refused, KeyError when the
    component is unknown, OpError when the config is malformed."""
    return COMPONENTS[component](config)

'use strict';
// limcheck reference port (JavaScript): lim, gate and throttle from spec.md alone.
// openComponent(component, config) builds a fresh subject whose do(op) takes one JSON op
// object of the conformance vectors and returns its JSON result object.
const wire = require('./wire');
const lim = require('./lim');
const gate = require('./gate');
const throttle = require('./throttle');

const VERSION = '3.2.0'; // the spec.md version this port implements

const COMPONENTS = {
  lim: lim.openLim,
  gate: gate.openGate,
  throttle: (config) => throttle.openThrottle(config, false),
  throttle_faults: (config) => throttle.openThrottle(config, true),
};

// A fresh subject; throws ConfigError when the config is refused, OpError when malformed.
function openComponent(component, config) {
  if (!Object.prototype.hasOwnProperty.call(COMPONENTS, component)) throw new wire.OpError(`unknown component ${JSON.stringify(component)}`);
  return COMPONENTS[component](config);
}

module.exports = { VERSION, COMPONENTS, openComponent, lim, gate, throttle, wire };

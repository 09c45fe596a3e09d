#!/usr/bin/env node
'use strict';
// Run the conformance vectors (spec.md VEC-1..VEC-15) against the JavaScript port.
// usage: node ports/js/run_vectors.js conformance/vectors
// Prints one line per failing case and ends with `N passed, M failed`; exits 1 on any failure.
// LIMCHECK_MUTANT=<name> runs them against a planted bug (mutants.js).
const fs = require('fs');
const path = require('path');
const { COMPONENTS, openComponent, wire } = require('./index');
const mutants = require('./mutants');

const FORMAT = 'limcheck-vectors/1';
const INT_FIELDS = new Set(['ok', 'err', 'cap', 'refil', 'ivl', 'maxif', 'retry', 'tks', 'last', 'n', 'key',
  'set', 'way', 'retry_after', 'remaining', 'until', 'count']);
const ENUM_FIELDS = {
  verdict: ['pass', 'shed', 'limited', 'allow', 'banned', 'unavailable'],
  error: ['store', 'config'],
};

// A result object's known fields as comparable strings (unknown keys ignored, VEC-8).
function normalize(res) {
  if (res === null || typeof res !== 'object' || Array.isArray(res)) throw new Error('result is not an object');
  const out = {};
  for (const [k, v] of Object.entries(res)) {
    if (INT_FIELDS.has(k)) out[k] = wire.parseInt64Range(v, wire.MIN_INT64, wire.MAX_UINT64, k).toString();
    else if (k === 'response') out[k] = 'hex:' + wire.parseBytes(v, k).toString('hex');
    else if (k === 'touched') {
      if (typeof v !== 'boolean') throw new Error('touched: not a boolean');
      out[k] = v;
    } else if (Object.prototype.hasOwnProperty.call(ENUM_FIELDS, k)) {
      if (!ENUM_FIELDS[k].includes(v)) throw new Error(`${k}: unknown value ${JSON.stringify(v)}`);
      out[k] = v;
    }
  }
  return out;
}

function sameResult(a, b) {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

const show = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v)
  ? JSON.stringify(Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])))
  : JSON.stringify(v));

// null if the case passes, else a one-line reason.
function runCase(c, file) {
  if (c.format !== FORMAT) return `format ${JSON.stringify(c.format)} is not ${FORMAT}`; // VEC-2
  const comp = c.component;
  if (!Object.prototype.hasOwnProperty.call(COMPONENTS, comp)) return `unknown component ${JSON.stringify(comp)}`;
  if (path.basename(path.dirname(file)) !== comp || path.basename(file) !== `${c.id}.json`) {
    return `file ${file} does not match component ${JSON.stringify(comp)} / id ${JSON.stringify(c.id)} (VEC-1)`;
  }
  let subject;
  try {
    subject = openComponent(comp, c.config);
  } catch (e) {
    if (!(e instanceof wire.ConfigError)) throw e;
    if (c.expect_open === 'config') return null; // VEC-11
    return 'op -: config refused, expected it to open';
  }
  if (c.expect_open !== undefined) return 'op -: expected config refusal, got an open instance';
  // VEC-15: a twin case runs on two instances opened side by side, each op on both.
  const subjects = [subject];
  if (c.twin === true) {
    try {
      subjects.push(openComponent(comp, c.config));
    } catch (e) {
      if (!(e instanceof wire.ConfigError)) throw e;
      return 'op -: the second instance of the config was refused (twin case)';
    }
  }
  const ops = c.ops || [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    for (let k = 0; k < subjects.length; k++) {
      const at = `op ${i} (${op.op})${k === 1 ? ' on the second instance' : ''}`;
      let got;
      try {
        got = subjects[k].do(op);
      } catch (e) {
        return `${at}: expected ${show(op.expect)}, got exception ${e.constructor.name}: ${e.message}`;
      }
      let same;
      try {
        same = sameResult(normalize(op.expect), normalize(got)); // VEC-10
      } catch (e) {
        return `${at}: expected ${show(op.expect)}, got ${show(got)}: ${e.message}`;
      }
      if (!same) return `${at}: expected ${show(op.expect)}, got ${show(got)}`;
    }
  }
  return null;
}

function main(argv) {
  if (argv.length !== 1) {
    process.stderr.write('usage: run_vectors.js <vectors dir>\n');
    return 2;
  }
  if (!mutants.known) {
    process.stderr.write(`unknown LIMCHECK_MUTANT ${JSON.stringify(mutants.name)}\n`);
    return 2;
  }
  const root = argv[0];
  let passed = 0;
  let failed = 0;
  for (const comp of fs.readdirSync(root).sort()) {
    const dir = path.join(root, comp);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(dir, name);
      let c = {};
      let why;
      try {
        c = JSON.parse(fs.readFileSync(file, 'utf8'));
        why = runCase(c, file);
      } catch (e) {
        why = `unreadable case: ${e.constructor.name}: ${e.message}`;
      }
      if (why === null) passed++;
      else {
        failed++;
        console.log(`FAIL ${(c && typeof c === 'object' && c.id) || file}: ${why}`);
      }
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));

#!/usr/bin/env node
'use strict';
// The port protocol limcheck-port/3 (spec.md PROTO-1..PROTO-11) around openComponent/do.
// usage: node ports/js/driver.js [--list-mutants]   (LIMCHECK_MUTANT=<name>: see mutants.js)
const readline = require('readline');
const mutants = require('./mutants');
const { VERSION, COMPONENTS, openComponent, wire } = require('./index');

// The result of one request to the instances insts (inst -> open instance): a result
// object, or throws for a fault (PROTO-4, PROTO-5).
function answer(req, insts) {
  if (req.op === 'open') {
    try {
      const made = openComponent(req.component, req.config);
      if (mutants.active('inst_by_component')) { // one live instance per component: the last opened
        insts.set(req.component, made);
        insts.set(req.inst, { do: (op) => insts.get(req.component).do(op) });
      } else insts.set(req.inst, made);
      return {};
    } catch (e) {
      if (e instanceof wire.ConfigError) return { error: 'config' };
      throw e;
    }
  }
  if (!insts.has(req.inst)) throw new wire.OpError(`instance ${JSON.stringify(req.inst)} is not open`);
  if (req.op === 'close') {
    insts.delete(req.inst);
    return {};
  }
  return insts.get(req.inst).do(req); // do ignores seq, inst (PROTO-3); store errors are results
}

// The reply line to the request line `line`, the n-th read (its seq if it carries none).
function reply(line, n, insts) {
  let seq = n;
  try {
    const req = JSON.parse(line);
    if (req !== null && Number.isInteger(req.seq)) seq = req.seq;
    return JSON.stringify({ seq, result: answer(req, insts) }); // PROTO-6
  } catch (e) {
    return JSON.stringify({ seq, fault: e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e) });
  }
}

function serve() {
  process.stdout.write(JSON.stringify({ // PROTO-2: the hello, before reading anything
    protocol: 'limcheck-port/3', name: 'limcheck-js', version: VERSION, components: Object.keys(COMPONENTS),
  }) + '\n');
  const insts = new Map(); // inst -> open instance
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0; // requests read: the seq of a line too broken to carry its own
  let paused = false;
  rl.on('line', (line) => {
    if (!line.trim()) return;
    const out = reply(line, ++n, insts);
    // PROTO-7: a pipe's stdout is asynchronous in node; pause reading while it backs up. Never
    // process.exit: on stdin's end the process exits (0, PROTO-8) once every reply is written.
    if (!process.stdout.write(out + '\n') && !paused) {
      paused = true;
      rl.pause();
      process.stdout.once('drain', () => { paused = false; rl.resume(); });
    }
  });
}

module.exports = { reply };

if (require.main !== module) {
  // required by the port's tests, for reply: no serving
} else if (process.argv[2] === '--list-mutants') {
  process.stdout.write(mutants.NAMES.map((m) => m + '\n').join(''));
} else if (!mutants.known) {
  process.stderr.write(`unknown LIMCHECK_MUTANT ${JSON.stringify(mutants.name)} (node driver.js --list-mutants)\n`);
  process.exitCode = 2;
} else {
  if (mutants.name) process.stderr.write(`limcheck-js: mutant ${mutants.name} planted\n`);
  serve();
}

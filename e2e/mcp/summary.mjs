// Prints run.sh's one-line summary: the Node client test counts and the conformance
// suite's scenario counts, judged the way the conformance CLI judges a baseline (a scenario
// fails when any of its checks is FAILURE or WARNING). It only reports; the exit codes of
// `node --test` and `conformance` decide whether the run passed.
//
// Usage: node summary.mjs <node-test-output> <conformance-output-dir> <expected-failures.yml> <seconds>

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const [nodeOut, confDir, expectedFile, seconds] = process.argv.slice(2);

// The spec reporter ends with lines such as "ℹ pass 31", "ℹ fail 0" and "ℹ cancelled 0".
function nodeCounts(file) {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const count = (key) => {
    const m = text.match(new RegExp(`^\\S+ ${key} (\\d+)$`, 'm'));
    return m ? Number(m[1]) : NaN;
  };
  // A test cancelled because its suite's set-up failed did not pass either.
  return { pass: count('pass'), fail: count('fail') + count('cancelled'), skipped: count('skipped') };
}

// Result folders are named server-<scenario>-<ISO timestamp>.
function conformanceCounts(dir, expected) {
  const c = { scenarios: 0, passed: 0, expectedFailures: 0, unexpected: [], stale: [], ok: 0, failed: 0, warnings: 0 };
  if (!existsSync(dir)) return c;
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, 'checks.json');
    if (!existsSync(file)) continue;
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    const checks = JSON.parse(readFileSync(file, 'utf8'));
    const n = (s) => checks.filter((x) => x.status === s).length;
    c.scenarios++;
    c.ok += n('SUCCESS');
    c.failed += n('FAILURE');
    c.warnings += n('WARNING');
    const failing = n('FAILURE') > 0 || n('WARNING') > 0;
    if (failing && expected.has(scenario)) c.expectedFailures++;
    else if (failing) {
      c.unexpected.push(scenario);
      for (const x of checks.filter((x) => x.status === 'FAILURE' || x.status === 'WARNING')) {
        console.log(`mcp-e2e: ${scenario}: ${x.status} ${x.name}: ${x.errorMessage ?? x.details?.message ?? ''}`);
      }
    }
    else if (expected.has(scenario)) c.stale.push(scenario);
    else c.passed++;
  }
  return c;
}

const expected = new Set(parse(readFileSync(expectedFile, 'utf8'))?.server ?? []);
const t = nodeCounts(nodeOut);
const c = conformanceCounts(confDir, expected);
const list = (xs) => (xs.length ? ` (${xs.join(', ')})` : '');
console.log(
  `mcp-e2e: node client tests ${t.pass} passed, ${t.fail} failed` +
    (t.skipped ? `, ${t.skipped} skipped` : '') +
    `; conformance ${c.scenarios} scenarios: ${c.passed} passed, ${c.expectedFailures} expected failures, ` +
    `${c.unexpected.length} unexpected failures${list(c.unexpected)}, ${c.stale.length} stale baseline entries${list(c.stale)}` +
    ` [checks: ${c.ok} ok, ${c.failed} failed, ${c.warnings} warnings]; ${seconds}s`,
);

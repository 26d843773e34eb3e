// Prints run.sh's one-line summary: the browser test counts, the heaviest page, the
// Chromium that ran them and the screenshots saved. It only reports; the exit code of `node --test` decides whether the run passed.
//
// Usage: node summary.mjs <node-test-output> <chromium --version> <artifacts-dir> <seconds>

import { readFileSync, readdirSync, existsSync } from 'node:fs';

const [nodeOut, chromium, artifacts, seconds] = process.argv.slice(2);

// The spec reporter ends with lines such as "ℹ pass 5", "ℹ fail 0" and "ℹ skipped 4".
const text = existsSync(nodeOut) ? readFileSync(nodeOut, 'utf8') : '';
const count = (key) => {
  const m = text.match(new RegExp(`^\\S+ ${key} (\\d+)$`, 'm'));
  return m ? Number(m[1]) : NaN;
};
// A test cancelled because its suite's set-up failed did not pass either.
const fail = count('fail') + count('cancelled');
const shots = existsSync(artifacts) ? readdirSync(artifacts).filter((f) => f.endsWith('.png')).length : 0;

// pages.test.mjs prints the heaviest and lightest page after the tests.
const weights = text.match(/^# page weights \(bytes transferred, cache off\): heaviest (\S+) (\d+), lightest (\S+) (\d+)$/m);
const weight = weights ? `; heaviest page ${weights[1]} ${(Number(weights[2]) / 1024).toFixed(1)} KB` : '';

console.log(
  `web-e2e: browser tests ${count('pass')} passed, ${fail} failed, ${count('skipped')} skipped${weight}` +
    `; ${chromium.trim() || 'Chromium (version unknown)'}, Node ${process.version}` +
    `; ${shots} screenshots in ${artifacts}; ${seconds}s`,
);

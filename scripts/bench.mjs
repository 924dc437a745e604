#!/usr/bin/env node
// `npm run bench`: the benchmark suite (HTTP read path against a bare node:http baseline, command
// round trips, webhooks, scale) is its own issue; until it lands this says so instead of measuring.
console.log('lockcloud benchmarks: none yet (see the benchmarks issue). Nothing was measured.');

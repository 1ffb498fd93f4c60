#!/usr/bin/env node
'use strict';
require('../dist/cli/main.js').main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`topocoll: ${err && err.message ? err.message : err}\n`);
    process.exit(1);
  },
);

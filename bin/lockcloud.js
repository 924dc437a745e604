#!/usr/bin/env node
// The `lockcloud` command. The sources are TypeScript run through tsx, so an installed package
// needs no build step.
import { register } from 'tsx/esm/api';

register();
const [command = 'serve', ...rest] = process.argv.slice(2);
const commands = {
  serve: '../src/bin/serve.ts',
  admin: '../src/bin/admin.ts',
  locks: '../src/bin/locks.ts',
  sim: '../src/bin/sim.ts',
  migrate: '../src/bin/migrate.ts',
};
if (!(command in commands)) {
  process.stderr.write(
    `lockcloud: unknown command "${command}". Commands: ${Object.keys(commands).join(', ')}\n`,
  );
  process.exit(2);
}
process.argv = [process.argv[0], process.argv[1], ...rest];
await import(commands[command]);

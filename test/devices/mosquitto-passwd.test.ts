/**
 * Mosquitto's `$7$` password hashes against the real `mosquitto_passwd` (when installed): what it
 * writes, our verifier accepts, and the user names it cannot hold, we refuse. The hashes and files
 * on their own: test/unit/adapters/mosquitto-files.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkMosquittoUsername } from '../../src/adapters/devices/mqtt/mosquitto-files.ts';
import { verifyMosquittoHash } from '../../src/adapters/devices/mqtt/mosquitto-password.ts';

const MOSQUITTO_PASSWD = '/usr/bin/mosquitto_passwd';
const SECRET = 'lcd_0123456789abcdefghijABCDEFGHIJ-_xyz';

describe('Mosquitto $7$ password hashes against the real mosquitto_passwd', {
  skip: !existsSync(MOSQUITTO_PASSWD) && 'not installed',
}, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-mosquitto-passwd-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('verifies the hash mosquitto_passwd makes of a device secret', () => {
    const file = join(dir, 'made-by-mosquitto');
    const run = spawnSync(MOSQUITTO_PASSWD, ['-c', '-b', file, 'ap-x', SECRET], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const line = readFileSync(file, 'utf8').trim();
    const hash = line.slice('ap-x:'.length);
    assert.match(hash, /^\$7\$101\$/);
    assert.ok(verifyMosquittoHash(SECRET, hash));
    assert.ok(!verifyMosquittoHash(`${SECRET}!`, hash));
  });

  it('refuses user names with a colon: Mosquitto splits password file lines at the first one', () => {
    const run = spawnSync(MOSQUITTO_PASSWD, ['-c', '-b', join(dir, 'colon'), 'ap:x', SECRET], {
      encoding: 'utf8',
    });
    assert.notEqual(run.status, 0);
    assert.throws(() => checkMosquittoUsername('ap:x'), /must not .* hold ':'/);
  });
});

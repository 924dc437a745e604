/**
 * The settings table is the one declaration: the README's table, --help and the parser all follow
 * it, so a setting added to it is documented and parsed, and one documented is real.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  describeConfig,
  loadConfig,
  SETTINGS,
  type Setting,
  type SettingName,
} from '../../../src/config/config.ts';
import { README_BEGIN, README_END, settingsHelp, settingsTable } from '../../../src/config/docs.ts';

const entries = Object.entries(SETTINGS) as [SettingName, Setting<unknown>][];

describe('the settings table', () => {
  it("is the README's table, as `npm run docs:settings` writes it", () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const begin = readme.indexOf(README_BEGIN);
    const end = readme.indexOf(README_END);
    assert.ok(begin >= 0 && end > begin, 'the README has the settings block');
    assert.equal(
      readme.slice(begin + README_BEGIN.length, end).trim(),
      settingsTable(),
      'README.md differs from src/config/settings.ts: run npm run docs:settings',
    );
  });

  it('has one README row and one --help entry per setting, naming its flag and variable', () => {
    const table = settingsTable().split('\n').slice(2);
    const help = settingsHelp();
    assert.equal(table.length, entries.length);
    for (const [name, s] of entries) {
      const row = table.find((line) => line.includes(`\`${s.envShown ?? s.env}\``));
      assert.ok(row, `${name}: a README row`);
      assert.ok(help.includes(`env ${s.env}`), `${name}: in --help`);
      if (s.flag !== undefined) {
        assert.ok(row.includes(`\`${s.flag} `), `${name}: ${s.flag} in its row`);
        assert.ok(help.includes(`  ${s.flag} `), `${name}: ${s.flag} in --help`);
      }
      for (const flag of Object.keys(s.switches ?? {})) {
        assert.ok(row.includes(`\`${flag}\``), `${name}: ${flag} in its row`);
        assert.ok(help.includes(flag), `${name}: ${flag} in --help`);
      }
    }
  });

  it('parses every default it declares, and every flag and variable it names', () => {
    const defaults = loadConfig({}, []);
    for (const [name, s] of entries) {
      if (s.default === undefined) assert.equal(defaults[name], undefined, name);
      // The variable set to the default's text gives the default's value; so does the flag.
      if (s.default === undefined || s.default === '') continue;
      assert.deepEqual(loadConfig({ [s.env]: s.default }, [])[name], defaults[name], `${name} from ${s.env}`);
      if (s.flag !== undefined)
        assert.deepEqual(
          loadConfig({}, [`${s.flag}=${s.default}`])[name],
          defaults[name],
          `${name} from ${s.flag}`,
        );
    }
    for (const [name, s] of entries) {
      for (const [flag, value] of Object.entries(s.switches ?? {})) {
        assert.deepEqual(
          loadConfig({}, [flag])[name],
          loadConfig({ [s.env]: value }, [])[name],
          `${name}: ${flag}`,
        );
      }
    }
  });

  it('describeConfig shows every setting of the table, unset ones as null', () => {
    const described = describeConfig(loadConfig({}, []));
    assert.deepEqual(Object.keys(described).sort(), entries.map(([name]) => name).sort());
    for (const [name, s] of entries) if (s.default === undefined) assert.equal(described[name], null, name);
  });
});

/**
 * The package's version: `lockcloud --version`, the OpenAPI document and the fake's `VERSION`. A
 * file of its own so that `--version` loads nothing else. test/package/package.test.ts keeps it
 * equal to `version` in package.json and to the newest entry of CHANGELOG.md.
 */
export const VERSION = '0.1.0';

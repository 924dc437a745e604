/**
 * The package's version, sent in `User-Agent` (internal: not exported from the package).
 * test/sdk/package.test.ts keeps it equal to `version` in sdk/package.json.
 *
 * @example
 * `lockcloud-sdk/${VERSION}`; // 'lockcloud-sdk/0.1.0'
 */
export const VERSION = '0.1.0';

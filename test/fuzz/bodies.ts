/**
 * Request bodies for the fuzzer: values that fit the documented schema, the same with one field wrong,
 * any JSON, forms with or without the CSRF token, deep nesting, sizes around the 16 KiB limit, text
 * that is not JSON, bytes that are not UTF-8, gzip'd bodies with and without Content-Encoding.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Schema } from '../http/openapi-helpers.ts';
import { LOCK_A, LOCK_B, OTHER, OTHER_KEY, OTHER_LOCK, OWNER, OWNER_KEY } from '../support/server.ts';
import { bodySchemaOf, type Endpoint } from './routes.ts';

export const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';
export const LIMIT = 16 * 1024;
export const KNOWN_LOCKS = [LOCK_A, LOCK_B, OTHER_LOCK, UNKNOWN_LOCK];
export const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'FOO',
];

export const text = (max = 40) => fc.string({ unit: 'grapheme', maxLength: max });
export const latin1 = (max = 40) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x20 : c)),
    maxLength: max,
  });
export const weighted = <T>(...parts: Array<readonly [number, fc.Arbitrary<T>]>) =>
  fc.oneof(...parts.map(([weight, arbitrary]) => ({ weight, arbitrary })));

/** Values that fit a documented schema, reached by name where the name says more than the type. */
function fromSchema(schema: Schema, name = ''): fc.Arbitrary<unknown> {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((s) => fromSchema(s, name)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === 'null') return fc.constant(null);
  if (schema.type === 'boolean') return fc.boolean();
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? -1000;
    const max = schema.maximum ?? 1000;
    return weighted([3, fc.integer({ min, max: Math.min(max, min + 100) })], [1, fc.constantFrom(min, max)]);
  }
  if (schema.type === 'object') {
    const entries = Object.entries(schema.properties ?? {});
    if (entries.length === 0) return fc.constant({});
    const required = new Set(schema.required ?? []);
    return fc.record(Object.fromEntries(entries.map(([k, s]) => [k, fromSchema(s, k)])), {
      requiredKeys: entries.map(([k]) => k).filter((k) => required.has(k)),
    });
  }
  const byName: Record<string, fc.Arbitrary<string>> = {
    apikey: fc.constantFrom(OWNER_KEY, OTHER_KEY, 'not-a-key'),
    device_id: fc.constantFrom(...KNOWN_LOCKS),
    url: fc.constantFrom('{{HOOK}}/{device_id}/{state}', '{{HOOK}}', 'ftp://127.0.0.1/', 'not a url'),
    email: fc.constantFrom(OWNER, OTHER, 'not-an-email'),
    password: fc.constantFrom('owner-password', 'other-password', 'wrong-password'),
  };
  return byName[name] ?? text(30);
}

/** A value of the wrong type for any field. */
const anyJson = fc.jsonValue({ maxDepth: 3 });

function jsonBodies(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const valid = schema ? fromSchema(schema) : fc.constant({ command: 'lock' });
  const mutated = fc.tuple(valid, fc.nat(), anyJson).map(([v, i, junk]) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return junk;
    const keys = Object.keys(v);
    const copy: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    const key = keys[i % Math.max(keys.length, 1)];
    if (key === undefined || i % 3 === 0) copy[`zz${i % 7}`] = junk;
    else if (i % 3 === 1) delete copy[key];
    else copy[key] = junk;
    return copy;
  });
  return weighted(
    [4, valid],
    [3, mutated],
    [1, anyJson],
    [1, fc.constant({ ['__proto__']: { polluted: true } })],
  );
}

const FORM_FIELDS = [
  'email',
  'password',
  'code',
  'confirm_email',
  'current_password',
  'new_password',
  'next',
  'url',
  'method',
  'command',
  'enabled',
  'open',
  'account',
  'key',
];
const formBody = fc
  .tuple(
    fc.dictionary(
      fc.constantFrom(...FORM_FIELDS),
      weighted([2, fc.constantFrom(OWNER, 'owner-password', 'lock', 'on', 'yes', '{{HOOK}}')], [1, text(30)]),
      { maxKeys: 4 },
    ),
    fc.constantFrom('_csrf={{CSRF}}&', '_csrf=wrong&', ''),
  )
  .map(([fields, csrf]) => csrf + new URLSearchParams(fields as Record<string, string>).toString());

export type Body = readonly [contentType: string | undefined, body: Buffer | undefined, encoding?: string];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json;',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'json',
  'application/json, text/plain',
];
const json =
  (ct = 'application/json') =>
  (v: unknown): Body => [ct, Buffer.from(JSON.stringify(v) ?? 'null')];

/** Bodies of every kind: fitting, wrong, deep, near and past the 16 KiB limit, not JSON, not UTF-8, gzip'd. */
export function bodyOf(endpoint: Endpoint): fc.Arbitrary<Body> {
  const schema = bodySchemaOf(endpoint);
  const dashboard = endpoint.surface === 'dashboard';
  return weighted<Body>(
    [dashboard ? 1 : 8, jsonBodies(schema).map(json())],
    [dashboard ? 6 : 1, formBody.map((f): Body => ['application/x-www-form-urlencoded', Buffer.from(f)])],
    [2, fc.constant<Body>([undefined, undefined])],
    [1, fc.tuple(fc.constantFrom(...CONTENT_TYPES), jsonBodies(schema)).map(([ct, v]) => json(ct)(v))],
    [
      1,
      fc
        .tuple(fc.integer({ min: 10, max: 9_000 }), fc.boolean())
        .map(
          ([n, arrays]): Body => [
            'application/json',
            Buffer.from(arrays ? '['.repeat(n) + ']'.repeat(n) : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
          ],
        ),
    ],
    [
      1,
      fc.constantFrom(LIMIT - 1, LIMIT, LIMIT + 1, 20_000, 70_000, 1_100_000).map((size): Body => {
        const head = '{"command":"lock","pad":"';
        return [
          'application/json',
          Buffer.from(`${head}${'x'.repeat(Math.max(0, size - head.length - 2))}"}`),
        ];
      }),
    ],
    [1, fc.tuple(fc.constantFrom(...CONTENT_TYPES), text(200)).map(([ct, t]): Body => [ct, Buffer.from(t)])],
    [1, fc.uint8Array({ maxLength: 300 }).map((b): Body => ['application/json', Buffer.from(b)])],
    [
      1,
      fc
        .constantFrom('\xff\xfe', '\xc3\x28', '\xed\xa0\x80', '\xf8\x88\x80\x80\x80', '\x00')
        .map(
          (bad): Body => [
            'application/json; charset=utf-8',
            Buffer.concat([Buffer.from('{"command":"'), Buffer.from(bad, 'latin1'), Buffer.from('"}')]),
          ],
        ),
    ],
    [
      1,
      fc
        .tuple(
          jsonBodies(schema),
          fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-zip', 'gzip, gzip'),
          fc.boolean(),
        )
        .map(
          ([v, enc, zipped]): Body => [
            'application/json',
            zipped ? gzipSync(JSON.stringify(v) ?? 'null') : Buffer.from(JSON.stringify(v) ?? 'null'),
            enc,
          ],
        ),
    ],
    [1, fc.constant<Body>(['application/json', Buffer.alloc(0)])],
  );
}

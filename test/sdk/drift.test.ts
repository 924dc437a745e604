/**
 * Drift: the SDK's types (through the runtime field lists of sdk/src/types.ts, which the compiler
 * ties to the types) against the OpenAPI document a live server serves, and its error classes
 * against docs/errors.md. A field, an enum value, an endpoint or an error code added, removed or
 * renamed on one side fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  COMMANDS,
  PARTNER_COMMANDS,
  REQUEST_FIELDS,
  RESPONSE_FIELDS,
  TASK_FAILURE_REASONS,
  V1_CONTROL_TYPES,
  V1_ERROR_CLASSES,
  V3_ERROR_CLASSES,
} from '../../sdk/src/index.ts';
import { startServer, type TestServer } from '../support/server.ts';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

function operation(doc: Doc, key: string): Operation {
  const [method = '', path = ''] = key.replace(/\[\]$/, '').split(' ');
  const op = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(op, `${key} is not in /openapi.json`);
  return op;
}

function responseSchema(doc: Doc, key: string): Schema {
  const schema = operation(doc, key).responses['200']?.content?.['application/json']?.schema;
  assert.ok(schema, `${key}: no 200 JSON schema`);
  if (key.endsWith('[]')) {
    const items = Object.values(schema.properties ?? {})[0]?.items;
    assert.ok(items, `${key}: not a wrapped array`);
    return items;
  }
  return schema.type === 'array' && schema.items ? schema.items : schema;
}

function enumOf(schema: Schema | undefined): unknown[] {
  if (schema === undefined) return [];
  return [...(schema.enum ?? []), ...(schema.anyOf ?? []).flatMap((s) => enumOf(s))];
}

const sorted = (list: readonly string[]): string[] => [...list].sort();

describe('sdk: drift against /openapi.json and docs/errors.md', () => {
  let t: TestServer;
  let doc: Doc;
  before(async () => {
    t = await startServer();
    doc = (await (await t.request('/openapi.json')).json()) as Doc;
  });
  after(() => t.close());

  it('every response type has exactly the documented fields, and the documented required ones', () => {
    for (const [key, list] of Object.entries(RESPONSE_FIELDS)) {
      const schema = responseSchema(doc, key);
      assert.deepEqual(sorted(list.fields), sorted(Object.keys(schema.properties ?? {})), `${key} fields`);
      assert.deepEqual(sorted(list.required), sorted(schema.required ?? []), `${key} required`);
    }
  });

  it('every request body type has exactly the documented fields', () => {
    for (const [key, list] of Object.entries(REQUEST_FIELDS)) {
      const schema = operation(doc, key).requestBody?.content['application/json']?.schema;
      assert.ok(schema, `${key}: no request body`);
      assert.deepEqual(sorted(list.fields), sorted(Object.keys(schema.properties ?? {})), `${key} fields`);
      assert.deepEqual(sorted(list.required), sorted(schema.required ?? []), `${key} required`);
    }
  });

  it('the command, control type and failure reason unions match the documented enums', () => {
    const body = (key: string, field: string) =>
      operation(doc, key).requestBody?.content['application/json']?.schema.properties?.[field];
    assert.deepEqual(
      sorted(COMMANDS),
      sorted(enumOf(body('POST /public/lock/{device_id}', 'command')) as string[]),
    );
    assert.deepEqual(
      sorted(PARTNER_COMMANDS),
      sorted(enumOf(body('POST /public/partners/automation', 'command')) as string[]),
    );
    assert.deepEqual(
      sorted(V1_CONTROL_TYPES),
      sorted(enumOf(body('POST /v1/locks/{lockId}/control', 'type')) as string[]),
    );
    const result = responseSchema(doc, 'GET /public/action-result');
    assert.deepEqual(sorted(TASK_FAILURE_REASONS), sorted(enumOf(result.properties?.error) as string[]));
    assert.deepEqual(
      sorted(['processing', 'terminated']),
      sorted(enumOf(result.properties?.status) as string[]),
    );
  });

  it('every v3 and v1 endpoint of the document is covered (the v1 control answers 204, no body)', () => {
    const covered = new Set(Object.keys(RESPONSE_FIELDS).map((k) => k.replace(/\[\]$/, '')));
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/public/') && !path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        const json = Object.entries(op.responses).some(
          ([s, r]) => s.startsWith('2') && r.content !== undefined,
        );
        if (json) assert.ok(covered.has(key), `${key} has no SDK type`);
        else assert.equal(key, 'POST /v1/locks/{lockId}/control');
      }
    }
  });

  it('every error of docs/errors.md (v3 and v1) has its class, and no class is for an undocumented one', () => {
    const text = readFileSync('docs/errors.md', 'utf8');
    const v3Section = text.slice(text.indexOf('## v3'), text.indexOf('## Sandbox'));
    const v1Section = text.slice(text.indexOf('## v1'));
    const v3Codes = new Set([...v3Section.matchAll(/`\{"error":"([A-Z_]+)/g)].map((m) => m[1] ?? ''));
    const v1Codes = new Set([...v1Section.matchAll(/`\{"code":(\d+)/g)].map((m) => Number(m[1])));
    assert.ok(v3Codes.size >= 8 && v1Codes.size >= 20);
    // "Forbidden" is the v3 document's other spelling of ACCESS_DENY.
    assert.deepEqual(sorted([...v3Codes, 'Forbidden']), sorted(Object.keys(V3_ERROR_CLASSES)));
    assert.deepEqual(
      [...v1Codes].sort((a, b) => a - b),
      Object.keys(V1_ERROR_CLASSES).map(Number),
    );
  });
});

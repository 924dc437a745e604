/** Shared by the OpenAPI test files: the shape of the document, and readers that fail when a part is missing. */
import assert from 'node:assert/strict';
import type { TestServer } from '../support/server.ts';
import { JSON_UTF8 } from './bad-input-helpers.ts';

export interface Schema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: Schema;
}
export interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
}
export interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Array<Record<string, unknown[]>>;
}
export interface OpenApi {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in: string; name: string; description?: string }>;
  };
}

export async function fetchDoc(t: TestServer): Promise<OpenApi> {
  const res = await t.request('/openapi.json');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), JSON_UTF8);
  return (await res.json()) as OpenApi;
}

export function operation(doc: OpenApi, path: string, method: string): Operation {
  const op = doc.paths[path]?.[method];
  assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
  return op;
}

export function bodySchema(doc: OpenApi, path: string, method = 'post'): Schema {
  const schema = operation(doc, path, method).requestBody?.content['application/json']?.schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} documents a JSON request body`);
  return schema;
}

export function parameter(
  doc: OpenApi,
  path: string,
  method: string,
  where: string,
  name: string,
): Parameter {
  const found = operation(doc, path, method).parameters?.find((p) => p.in === where && p.name === name);
  assert.ok(found, `${method.toUpperCase()} ${path} documents the ${where} parameter ${name}`);
  return found;
}

/** The values a schema allows when it is a closed set (enum, const, or a union of them); else undefined. */
export function allowedValues(schema: Schema): unknown[] | undefined {
  if (schema.enum) return schema.enum;
  if ('const' in schema) return [schema.const];
  if (schema.type === 'null') return [null];
  const union = schema.anyOf ?? schema.oneOf;
  if (!union) return undefined;
  const parts = union.map(allowedValues);
  return parts.every((p) => p !== undefined) ? parts.flat() : undefined;
}

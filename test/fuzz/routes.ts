/**
 * The fuzzer's route table, read from the running server so that a new endpoint is fuzzed without
 * anyone listing it: every route Fastify has (its printRoutes tree, the dashboard's hidden ones too),
 * joined with what the OpenAPI document says of it (parameters, body and answer schemas).
 */
import type { FastifyInstance } from 'fastify';
import type { OpenApi, Operation, Schema } from '../http/openapi-helpers.ts';

export type Surface = 'v1' | 'v3' | 'ext' | 'sandbox' | 'dashboard-api' | 'dashboard' | 'oauth' | 'root';

export interface Endpoint {
  /** `POST /public/lock/:device_id`: the label the reports count by. */
  readonly name: string;
  readonly method: string;
  /** Fastify's pattern: `:name` for a parameter, `*` for a wildcard. */
  readonly path: string;
  readonly surface: Surface;
  /** The OpenAPI operation, for the documented API routes; undefined for the dashboard and the ops routes. */
  readonly operation: Operation | undefined;
}

/** The surface a request target belongs to, by the same prefixes the server's edge handlers use. */
export function surfaceOf(target: string): Surface {
  const under = (prefix: string) => new RegExp(`^${prefix}(?:[/?#]|$)`).test(target);
  if (under('/v1')) return 'v1';
  if (under('/public')) return 'v3';
  if (under('/ext')) return 'ext';
  if (under('/_sim')) return 'sandbox';
  if (target.startsWith('/dashboard/api/')) return 'dashboard-api';
  if (under('/dashboard')) return 'dashboard';
  if (under('/oauth') || under('/.well-known/oauth-authorization-server')) return 'oauth';
  return 'root';
}

/**
 * Fastify's route tree (`printRoutes({ commonPrefix: false })`) as [path, methods] pairs: each line is
 * a node whose full path is its ancestors' segments joined, with its methods in parentheses.
 */
export function parseRouteTree(tree: string): Array<readonly [string, readonly string[]]> {
  const out: Array<readonly [string, readonly string[]]> = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    if (match[3]) out.push([stack.join(''), match[3].split(',').map((m) => m.trim())]);
  }
  return out;
}

/** `/public/lock/{device_id}` in the document is `/public/lock/:device_id` in Fastify. */
const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export function routeTable(app: FastifyInstance, doc: OpenApi): Endpoint[] {
  const endpoints: Endpoint[] = [];
  for (const [path, methods] of parseRouteTree(app.printRoutes({ commonPrefix: false }))) {
    for (const method of methods) {
      // HEAD is Fastify's automatic twin of each GET: the method mutator sends it anyway.
      if (method === 'HEAD' && methods.includes('GET')) continue;
      endpoints.push({
        name: `${method} ${path}`,
        method,
        path,
        surface: surfaceOf(path),
        operation: doc.paths[openApiPath(path)]?.[method.toLowerCase()],
      });
    }
  }
  return endpoints;
}

/** The JSON body schema of an operation, if it documents one. */
export function bodySchemaOf(endpoint: Endpoint): Schema | undefined {
  return endpoint.operation?.requestBody?.content['application/json']?.schema;
}

/** The documented schema of a JSON answer with this status, if any. */
export function answerSchemaOf(endpoint: Endpoint, status: number): Schema | undefined {
  return endpoint.operation?.responses[String(status)]?.content?.['application/json']?.schema;
}

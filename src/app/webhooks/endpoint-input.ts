/**
 * The rules every way of making or changing a webhook endpoint applies: checked fields, or
 * INVALID_INPUT naming the field (docs/webhooks.md "Endpoints").
 */
import { DomainError } from '../../domain/errors.ts';
import {
  endpointTypeProblem,
  endpointUrlProblem,
  MAX_ENDPOINT_DEVICES,
  MAX_ENDPOINT_TYPES,
} from '../../domain/webhook-endpoint.ts';

export interface EndpointInput {
  readonly url?: unknown;
  readonly types?: unknown;
  readonly device_ids?: unknown;
  readonly retries?: unknown;
  readonly enabled?: unknown;
}

export interface CheckedEndpointInput {
  readonly url?: string;
  readonly types?: readonly string[];
  readonly deviceIds?: readonly string[];
  readonly retries?: boolean;
  readonly enabled?: boolean;
}

function invalid(field: string, message: string): never {
  throw new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });
}

function stringList(field: string, value: unknown, max: number): string[] {
  if (!Array.isArray(value)) invalid(field, 'must be an array of strings');
  if (value.length > max) invalid(field, `must hold at most ${max}`);
  const list: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') invalid(field, 'must be an array of strings');
    if (!list.includes(item)) list.push(item);
  }
  return list;
}

/**
 * Checks what is given; what is left out stays undefined (a PATCH keeps it, a create defaults it).
 * `refused` says whether the address policy refuses the URL's literal host (the transport's).
 */
export function checkEndpointInput(
  input: EndpointInput,
  refused: (url: string) => boolean,
): CheckedEndpointInput {
  const out: { -readonly [K in keyof CheckedEndpointInput]: CheckedEndpointInput[K] } = {};
  if (input.url !== undefined) {
    if (typeof input.url !== 'string') invalid('url', 'must be a string');
    const problem = endpointUrlProblem(input.url);
    if (problem !== undefined) invalid('url', problem);
    if (refused(input.url)) invalid('url', 'the destination address is not allowed');
    out.url = input.url;
  }
  if (input.types !== undefined) {
    const types = stringList('types', input.types, MAX_ENDPOINT_TYPES);
    for (const type of types) {
      const problem = endpointTypeProblem(type);
      if (problem !== undefined) invalid('types', problem);
    }
    out.types = types;
  }
  if (input.device_ids !== undefined) {
    out.deviceIds = stringList('device_ids', input.device_ids, MAX_ENDPOINT_DEVICES).map((id) =>
      id.toLowerCase(),
    );
  }
  if (input.retries !== undefined) {
    if (typeof input.retries !== 'boolean') invalid('retries', 'must be true or false');
    out.retries = input.retries;
  }
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean') invalid('enabled', 'must be true or false');
    out.enabled = input.enabled;
  }
  return out;
}

export { invalid as invalidEndpointInput };

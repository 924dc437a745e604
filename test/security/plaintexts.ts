/**
 * The secrets a test has seen in clear, and where they must not be found again: each is searched for
 * as itself and in its obvious encodings (hex, base64, base64url, URL-encoded; for a base64 secret
 * such as a whsec_ key or the server key, also its decoded bytes, raw and in hex).
 */

export type Kind =
  | 'password'
  | 'v1 token'
  | 'api key'
  | 'webhook secret'
  | 'code'
  | 'session'
  | 'csrf'
  | 'server key'
  | 'device secret'
  | 'oauth client secret'
  | 'oauth code'
  | 'oauth token';

export interface Plaintext {
  readonly label: string;
  readonly kind: Kind;
  readonly value: string;
}

export interface Finding {
  readonly label: string;
  readonly kind: Kind;
  readonly encoding: string;
  readonly where: string;
  /** A few characters around the first hit, to show what held it. */
  readonly context: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The byte strings `value` may be written as. */
function encodings(p: Plaintext): [string, Buffer][] {
  const utf8 = Buffer.from(p.value, 'utf8');
  const forms: [string, Buffer][] = [
    ['clear', utf8],
    ['hex', Buffer.from(utf8.toString('hex'))],
    ['HEX', Buffer.from(utf8.toString('hex').toUpperCase())],
    ['base64', Buffer.from(utf8.toString('base64').replace(/=+$/, ''))],
    ['base64url', Buffer.from(utf8.toString('base64url'))],
    ['url-encoded', Buffer.from(encodeURIComponent(p.value))],
    ['form-encoded', Buffer.from(new URLSearchParams({ x: p.value }).toString().slice(2))],
  ];
  const inner = p.value.startsWith('whsec_') ? p.value.slice(6) : p.value;
  if ((p.kind === 'webhook secret' || p.kind === 'server key') && BASE64.test(inner)) {
    const bytes = Buffer.from(inner, 'base64');
    forms.push(
      ['decoded bytes', bytes],
      ['decoded hex', Buffer.from(bytes.toString('hex'))],
      ['decoded base64url', Buffer.from(bytes.toString('base64url'))],
    );
  }
  // Shorter than 5 bytes (the last base64 quantum, say) would match by chance: not a finding.
  const seen = new Set<string>();
  return forms.filter(([, b]) => {
    const key = b.toString('latin1');
    if (b.length < 5 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Where `needle` occurs in `haystack`. A six-digit code is only a finding on its own, not inside a
 * longer run of hex digits (a hash, a UUID, a timestamp), where any six digits turn up by chance.
 */
function indexOf(haystack: Buffer, needle: Buffer, p: Plaintext): number {
  if (p.kind !== 'code') return haystack.indexOf(needle);
  const isHex = (byte: number | undefined): boolean =>
    byte !== undefined && /[0-9a-fA-F]/.test(String.fromCharCode(byte));
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (!isHex(haystack[at - 1]) && !isHex(haystack[at + needle.length])) return at;
  }
  return -1;
}

export class Plaintexts {
  readonly all: Plaintext[] = [];

  add(kind: Kind, label: string, value: string): string {
    if (value === '') throw new Error(`${label}: an empty plaintext cannot be searched for`);
    if (!this.all.some((p) => p.value === value)) this.all.push({ kind, label, value });
    return value;
  }

  /** Every plaintext (of the kinds asked, or all) found in `haystack`, with the encoding it was in. */
  find(haystack: Buffer | string, where: string, kinds?: readonly Kind[]): Finding[] {
    const hay = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
    const found: Finding[] = [];
    for (const p of this.all) {
      if (kinds !== undefined && !kinds.includes(p.kind)) continue;
      for (const [encoding, needle] of encodings(p)) {
        const at = indexOf(hay, needle, p);
        if (at === -1) continue;
        const context = hay
          .subarray(Math.max(0, at - 40), at + needle.length + 40)
          .toString('latin1')
          .replace(/[^\x20-\x7e]/g, '.');
        found.push({ label: p.label, kind: p.kind, encoding, where, context });
        break;
      }
    }
    return found;
  }
}

export function describeFindings(findings: readonly Finding[]): string {
  return findings
    .map((f) => `${f.kind} "${f.label}" (${f.encoding}) in ${f.where}: ...${f.context}...`)
    .join('\n');
}

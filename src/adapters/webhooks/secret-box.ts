import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretBox } from '../../app/ports.ts';

const KEY_BYTES = 32;
export const SERVER_KEY_FILE = 'server.key';

/** AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. A fresh IV every time. */
export function aesGcmBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error(`the server key must be ${KEY_BYTES} bytes`);
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

/**
 * The server's key: LOCKCLOUD_SECRET_KEY (base64, 32 bytes) when given, which several processes must
 * share; otherwise a key file in the data directory, made on first start, readable by its owner only.
 */
export function loadServerKey(given: string | undefined, dataDir: string): Buffer {
  if (given !== undefined) {
    const key = Buffer.from(given, 'base64');
    if (key.length !== KEY_BYTES)
      throw new Error(`LOCKCLOUD_SECRET_KEY must be ${KEY_BYTES} bytes, base64-encoded`);
    return key;
  }
  const path = join(dataDir, SERVER_KEY_FILE);
  if (existsSync(path)) return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  const key = randomBytes(KEY_BYTES);
  // On PostgreSQL nothing else makes the data directory: the key file may be its first content.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return key;
}

import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Encrypts secrets at rest (SMTP passwords) with AES-256-GCM under a key kept outside the database. */
export interface SecretBox {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  // One key object for every call: importing the raw key per call showed in the list's cursor cost.
  const keyObject = createSecretKey(key);
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyObject, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unreadable secret');
      const decipher = createDecipheriv('aes-256-gcm', keyObject, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The key lives in a file beside the database (`<db>.key`, mode 0600): a copied database alone
 * does not reveal the SMTP passwords. An in-memory database gets a key for its lifetime only.
 */
export function loadOrCreateKey(databaseFile: string): Buffer {
  if (databaseFile === ':memory:') return randomBytes(32);
  const keyFile = `${databaseFile}.key`;
  if (existsSync(keyFile)) return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64url');
  const key = randomBytes(32);
  writeFileSync(keyFile, key.toString('base64url'), { mode: 0o600, flag: 'wx' });
  return key;
}

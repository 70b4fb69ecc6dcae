import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: the key a client sends as `Authorization: Token <key>`. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored only as their SHA-256: a copy of the database does not yield usable keys. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Parses `Token <key>`; any other scheme (Bearer, Basic) is not accepted. The scheme name is
 * case-insensitive and may be followed by several spaces, as HTTP defines (RFC 9110 11.1, 11.4).
 */
export function parseAuthorization(header: string | undefined | null): string | null {
  if (!header) return null;
  const m = /^token +([A-Za-z0-9_\-.~+/=]{16,256})$/i.exec(header.trim());
  return m ? m[1] : null;
}

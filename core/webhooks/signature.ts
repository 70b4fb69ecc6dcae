/**
 * The signature every delivery carries: `ardesk-signature: t=<unix seconds>,v1=<hex HMAC-SHA256
 * of "<t>.<body>" with the endpoint's secret>`. The timestamp inside the signed text lets a
 * receiver refuse replays older than its window (README shows the check).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'ardesk-signature';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

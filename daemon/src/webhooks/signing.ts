// Standard Webhooks signing: a whsec_ secret (base64 key bytes), and v1 HMAC-SHA256 over "id.timestamp.body".
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes, in the whsec_ form the standardwebhooks libraries take. */
export function generateSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

export function isSecret(text: string): boolean {
  return text.startsWith(PREFIX) && Buffer.from(text.slice(PREFIX.length), 'base64').length >= 24;
}

/** The webhook-signature header value for one attempt; `timestampSeconds` is the webhook-timestamp header. */
export function signatureHeader(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

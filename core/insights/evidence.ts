/**
 * Evidence: the facts, figures and records an insight or a generated action rests on, so a
 * collector can see why. Stored as JSON on the row and returned top-level as `evidence`.
 */
// zod as @hono/zod-openapi extends it: the HTTP layer registers this schema in the OpenAPI document.
import { z } from '@hono/zod-openapi';

export const EVIDENCE_REF_TYPES = ['invoice', 'payment', 'communication', 'action', 'insight', 'customer'] as const;

export const evidenceItemSchema = z.object({
  fact: z.string(),
  value: z.union([z.string(), z.number(), z.null()]).optional(),
  source: z.string(),
  ref: z.object({ type: z.enum(EVIDENCE_REF_TYPES), id: z.string() }).optional(),
});

export type EvidenceItem = z.infer<typeof evidenceItemSchema>;

export function fact(fact: string, value: string | number | null | undefined, source: string, ref?: EvidenceItem['ref']): EvidenceItem {
  return { fact, ...(value === undefined ? {} : { value }), source, ...(ref ? { ref } : {}) };
}

/** Stored evidence back as items; a row written before 0040 has none. */
export function parseEvidence(text: string | null | undefined): EvidenceItem[] {
  if (!text) return [];
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? (parsed as EvidenceItem[]) : [];
}

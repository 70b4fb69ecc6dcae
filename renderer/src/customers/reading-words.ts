import type { Schemas } from '../api/client';
import { formatDate, formatMoney } from '../desk/format';

type Reading = NonNullable<Schemas['ReplyReading']>;

/** What ardesk made of a reply, in words. */
export function readingWords(r: Reading, currency: string): string {
  if (r.kind === 'promise') {
    const amount = r.promise_amount !== null ? ` ${formatMoney(r.promise_amount, currency)}` : '';
    return r.promise_date ? `Promise to pay${amount} by ${formatDate(r.promise_date)}` : `Promise to pay${amount}, no date given`;
  }
  if (r.kind === 'dispute') return r.automatic ? 'A possible dispute' : 'A dispute';
  if (r.kind === 'needs_answer') return 'A question that needs an answer';
  return 'Nothing to act on';
}

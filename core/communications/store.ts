/** Writing a communication: the one insert every channel uses (calls, notes, emails sent and received). */
import type { Insertable } from 'kysely';
import type { CommunicationsTable } from '../db/schema';
import type { CommandTx } from '../engine';

export type NewCommunication = Insertable<CommunicationsTable>;

/** Inserts and records it; the communications_last_touch trigger makes a contact with the customer (not an internal note) the invoice's last touch. */
export async function insertCommunication(tx: CommandTx, row: NewCommunication): Promise<string> {
  await tx.db.insertInto('communications').values(row).execute();
  await tx.record('communication', row.id, 'insert', row);
  return row.id;
}

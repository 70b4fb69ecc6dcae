/** What an import is asked to do and what it answers, shared by the import and its thread (import-off-thread.ts). */
import type { Actor } from '../engine';
import type { ParsedStatement, StatementFormat } from './statement';

export interface ImportSummary {
  /** Null for a dry run. */
  id: string | null;
  dry_run: boolean;
  format: StatementFormat;
  account: string;
  currency: string;
  period_start: string | null;
  period_end: string | null;
  entries: number;
  credits: number;
  debits: number;
  applied: number;
  suggested: number;
  unmatched: number;
  duplicates: number;
  warnings: string[];
}

export interface ImportStatementOptions {
  companyId: string;
  actor: Actor;
  statement: ParsedStatement;
  fileName: string | null;
  dryRun: boolean;
}

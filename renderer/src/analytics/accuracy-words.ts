/**
 * How good the cash-in forecast is (the forecast's `accuracy`, core/intelligence/forecast-accuracy.ts),
 * in a manager's words: the share of the cash that came in by which it missed, beside what the two
 * simple ways would have missed by. Pure: unit-tested directly.
 */
import { formatDate } from '../desk/format';

export interface HorizonFigures {
  horizon_weeks: number;
  weeks: number;
  wape: number | null;
  bias: number | null;
  baselines: { due_date: { wape: number | null }; run_rate: { wape: number | null } };
}

export interface AccuracyFigures {
  weeks: number;
  from: string | null;
  to: string | null;
  horizons: HorizonFigures[];
  /** The server's words for why nothing was measured. */
  reason?: string | null;
}

export interface AccuracyRow {
  ahead: string;
  weeks: number;
  forecast: string;
  dueDate: string;
  runRate: string;
  bias: string;
}

export interface AccuracyWords {
  headline: string;
  lines: string[];
  rows: AccuracyRow[];
}

const pct = (v: number | null) => (v === null ? 'not measurable' : `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`);
const weeksWord = (n: number) => `${n} week${n === 1 ? '' : 's'}`;

function biasWords(v: number | null): string {
  if (v === null) return 'not measurable';
  if (Math.abs(v) < 0.005) return 'none';
  return `${pct(Math.abs(v))} ${v > 0 ? 'too high' : 'too low'}`;
}

/** null: not measured yet (no full refresh of the insights since the figures came). */
export function accuracyWords(a: AccuracyFigures | null): AccuracyWords {
  if (a === null) {
    return { headline: 'Not measured yet', lines: ['The next refresh of the insights measures how far this forecast lands from the cash that comes in.'], rows: [] };
  }
  const next = a.horizons.find((h) => h.horizon_weeks === 1);
  if (a.weeks === 0 || !next || next.wape === null) {
    return { headline: 'Not measured', lines: [a.reason ? `${a.reason}.` : 'No payment came in over the weeks measured.'], rows: [] };
  }
  const month = a.horizons.find((h) => h.horizon_weeks === 4 && h.wape !== null);
  const period = a.from && a.to ? ` (${formatDate(a.from)} – ${formatDate(a.to)})` : '';
  const lines = [
    `Measured on this company's last ${weeksWord(a.weeks)}${period}: the forecast of the next week's cash in was off by ${pct(next.wape)} of what came in.`,
    `Paying every invoice on its due date would have been off by ${pct(next.baselines.due_date.wape)}; the last 4 weeks' average, by ${pct(next.baselines.run_rate.wape)}.`,
  ];
  if (month) lines.push(`Four weeks ahead it was off by ${pct(month.wape)} (due dates: ${pct(month.baselines.due_date.wape)}; 4-week average: ${pct(month.baselines.run_rate.wape)}).`);
  return {
    headline: `A week ahead: off by ${pct(next.wape)} of cash in`,
    lines,
    rows: a.horizons
      .filter((h) => h.weeks > 0)
      .map((h) => ({
        ahead: weeksWord(h.horizon_weeks),
        weeks: h.weeks,
        forecast: pct(h.wape),
        dueDate: pct(h.baselines.due_date.wape),
        runRate: pct(h.baselines.run_rate.wape),
        bias: biasWords(h.bias),
      })),
  };
}

import { describe, expect, it } from 'vitest';
import { accuracyWords, type HorizonFigures } from '../../renderer/src/analytics/accuracy-words';
import { describeInsight } from '../../renderer/src/insights/describe';

const horizon = (h: number, weeks: number, wape: number | null, due: number | null, run: number | null, bias: number | null): HorizonFigures => ({
  horizon_weeks: h,
  weeks,
  wape,
  bias,
  baselines: { due_date: { wape: due }, run_rate: { wape: run } },
});

describe("the forecast's accuracy in words", () => {
  it('says by how much of the cash in it missed a week and four weeks ahead, beside the two simple ways, and lists every week ahead measured', () => {
    const words = accuracyWords({
      weeks: 13,
      from: '2026-08-17',
      to: '2026-11-15',
      horizons: [horizon(1, 13, 0.148, 0.212, 0.178, -0.041), horizon(2, 12, 0.158, 0.337, 0.184, 0.002), horizon(3, 11, 0.167, 6.735, 0.183, 0.03), horizon(4, 10, 0.173, 0.241, 0.178, 0.019), horizon(8, 0, null, null, null, null)],
    });
    expect(words.headline).toBe('A week ahead: off by 15% of cash in');
    expect(words.lines[0]).toMatch(/^Measured on this company's last 13 weeks \(.+ – .+\): the forecast of the next week's cash in was off by 15% of what came in\.$/);
    expect(words.lines[1]).toBe("Paying every invoice on its due date would have been off by 21%; the last 4 weeks' average, by 18%.");
    expect(words.lines[2]).toBe('Four weeks ahead it was off by 17% (due dates: 24%; 4-week average: 18%).');
    // Weeks ahead with nothing measured are left out; a bias under half a percent is none.
    expect(words.rows).toEqual([
      { ahead: '1 week', weeks: 13, forecast: '15%', dueDate: '21%', runRate: '18%', bias: '4.1% too low' },
      { ahead: '2 weeks', weeks: 12, forecast: '16%', dueDate: '34%', runRate: '18%', bias: 'none' },
      { ahead: '3 weeks', weeks: 11, forecast: '17%', dueDate: '674%', runRate: '18%', bias: '3.0% too high' },
      { ahead: '4 weeks', weeks: 10, forecast: '17%', dueDate: '24%', runRate: '18%', bias: '1.9% too high' },
    ]);
  });

  it('says when it is not measured yet, or cannot be', () => {
    expect(accuracyWords(null)).toMatchObject({ headline: 'Not measured yet', rows: [] });
    // The server's reason, as it says it (too little history, or a ledger larger than the replay reads).
    const empty = accuracyWords({ weeks: 0, from: null, to: null, horizons: [horizon(1, 0, null, null, null, null)], reason: 'Too little history: the forecast is measured from 8 weeks after the first invoice' });
    expect(empty).toEqual({ headline: 'Not measured', lines: ['Too little history: the forecast is measured from 8 weeks after the first invoice.'], rows: [] });
    // No cash came in over the weeks measured: no share to give.
    expect(accuracyWords({ weeks: 3, from: '2026-01-05', to: '2026-01-25', horizons: [horizon(1, 3, null, null, null, null)], reason: null })).toEqual({
      headline: 'Not measured',
      lines: ['No payment came in over the weeks measured.'],
      rows: [],
    });
  });
});

describe('the insight in the feed', () => {
  it('reads as the note beside the chart does', () => {
    const payload = { entity: { type: 'portfolio' }, weeks: 13, from: '2026-08-17', to: '2026-11-15', horizons: [horizon(1, 13, 0.148, 0.212, 0.178, -0.041)] };
    const words = describeInsight({ insight_type: 'portfolio_forecast_accuracy', payload_json: payload, evidence: [{ fact: 'Weeks of forecasts replayed', value: 13, source: 'payment_history' }] });
    expect(words).toMatchObject({ kind: 'How good the cash forecast is', title: 'Cash forecast: a week ahead: off by 15% of cash in', severity: null });
    expect(words.lines).toEqual(accuracyWords(payload).lines);
    const unmeasured = describeInsight({ insight_type: 'portfolio_forecast_accuracy', payload_json: { weeks: 0, from: null, to: null, horizons: [], reason: 'Not measured: more than 100,000 invoices in the weeks replayed and the year before them' } });
    expect(unmeasured).toMatchObject({ title: 'Cash forecast: not measured', lines: ['Not measured: more than 100,000 invoices in the weeks replayed and the year before them.'] });
  });
});

/**
 * Whether an insight has something to report. The insight feeds can leave out those that do not
 * (a signal that found none, a plan to only monitor, a summary of no conversation); they are still
 * listed by default, with their reason. Worked out once when the insight is written and kept as
 * insights.reportable (0290), so the feed reads it from an index instead of parsing every payload.
 */
export function isReportable(insightType: string, payload: Record<string, unknown>): boolean {
  switch (insightType) {
    case 'customer_signal':
    case 'invoice_signal':
    case 'portfolio_signal':
      return payload.signal != null;
    case 'customer_strategy_plan': {
      const plan = payload.strategy_plan;
      return !(plan !== null && typeof plan === 'object' && (plan as Record<string, unknown>).strategy === 'monitor');
    }
    case 'customer_conversation_summary':
      return (payload.summary ?? '') !== '';
    default:
      return true;
  }
}

const RISK_TONE: Record<string, string> = { high: 'badge-bad', medium: 'badge-warn', low: 'badge-ok' };

/** The severity of the customer's active signal in words; nothing flagged says so plainly. */
export function RiskBadge({ risk }: { risk: string | null }) {
  if (!risk) return <span className="muted">None flagged</span>;
  return <span className={`badge ${RISK_TONE[risk] ?? ''}`}>{`${risk[0].toUpperCase()}${risk.slice(1)} risk`}</span>;
}

const RISK_TONE: Record<string, string> = { high: 'badge-bad', medium: 'badge-warn', low: 'badge-ok' };

/** The customer's risk as a collector means it (core/customers/risk.ts): the level, and why in words. */
export function RiskBadge({ risk, reason }: { risk: 'high' | 'medium' | 'low' | null; reason: string }) {
  if (!risk) return <span className="muted">{reason}</span>;
  return (
    <span className="risk-cell">
      <span className={`badge ${RISK_TONE[risk] ?? ''}`}>{`${risk[0].toUpperCase()}${risk.slice(1)} risk`}</span> <span className="muted small">{reason}</span>
    </span>
  );
}

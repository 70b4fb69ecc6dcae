import { useCallback, useEffect, useState } from 'react';
import type { Section } from '../state/route';
import { useSession } from '../state/session';
import { ErrorBox } from './ErrorBox';

const ABOUT: Record<Exclude<Section, 'invoices' | 'customers' | 'actions' | 'queue' | 'sequences'>, { title: string; purpose: string; match: RegExp }> = {
  analytics: {
    title: 'Analytics',
    purpose: 'Aging over time, DSO and collection effectiveness, and the 13-week cash forecast against actuals.',
    match: /\/(ar-aging|analytics)/,
  },
  insights: {
    title: 'Insights',
    purpose: 'Conversation summaries, pay-date predictions and signals about customers, invoices and the portfolio, with feedback.',
    match: /\/intelligence/,
  },
  settings: {
    title: 'Settings',
    purpose: 'Email connections, team members, labels, API tokens for scripts, and the workspace data folder.',
    match: /\/(email-connections|team-members|labels|v1\/auth|tokens)/,
  },
};

interface OperationRef {
  method: string;
  path: string;
  summary: string;
}

/**
 * A workflow whose screen a later issue builds. It says so plainly and lists the API operations
 * that already exist for it (read from the server's own OpenAPI document), so nothing is invented.
 */
export function Upcoming({ section }: { section: Exclude<Section, 'invoices' | 'customers' | 'actions' | 'queue' | 'sequences'> }) {
  const baseUrl = useSession((s) => s.baseUrl);
  const about = ABOUT[section];
  const [ops, setOps] = useState<OperationRef[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      const res = await fetch(`${baseUrl}/api/openapi.json`);
      if (!res.ok) throw new Error(`The API document answered ${res.status}`);
      const doc = (await res.json()) as { paths: Record<string, Record<string, { summary?: string }>> };
      const found: OperationRef[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        if (!about.match.test(path)) continue;
        for (const [method, op] of Object.entries(item)) found.push({ method: method.toUpperCase(), path, summary: op.summary ?? '' });
      }
      setOps(found);
    } catch (err) {
      setError(err);
    }
  }, [baseUrl, about]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="upcoming" aria-labelledby="upcoming-title">
      <h1 id="upcoming-title">{about.title}</h1>
      <p className="lead">{about.purpose}</p>
      <p className="muted">This screen comes in a later issue. What exists today is the API below, usable from scripts with a token (reference at <a href="/api/docs">/api/docs</a>).</p>
      {error ? (
        <ErrorBox what="the API document" error={error} onRetry={load} />
      ) : ops === null ? (
        <p className="muted">Loading…</p>
      ) : ops.length === 0 ? (
        <p className="muted">No API operations for this area yet.</p>
      ) : (
        <table className="ops">
          <tbody>
            {ops.map((op) => (
              <tr key={`${op.method} ${op.path}`}>
                <td>
                  <code className={`method method-${op.method.toLowerCase()}`}>{op.method}</code>
                </td>
                <td>
                  <code>{op.path}</code>
                </td>
                <td className="muted">{op.summary}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

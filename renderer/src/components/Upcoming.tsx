import { useCallback, useEffect, useState } from 'react';
import type { Section } from '../state/route';
import { useSession } from '../state/session';
import { ErrorBox } from './ErrorBox';

type UpcomingSection = Exclude<Section, 'invoices' | 'customers' | 'analytics' | 'insights' | 'settings'>;

const ABOUT: Record<UpcomingSection, { title: string; purpose: string; match: RegExp }> = {
  actions: {
    title: 'Actions',
    purpose: 'Approve, edit, reject or send the recommended collection actions (emails, calls, tasks) for each invoice.',
    match: /\/actions/,
  },
  sequences: {
    title: 'Sequences',
    purpose: 'Build multi-step outreach programs (reminders before and after the due date, calls, tasks) and enroll customers in them.',
    match: /\/sequence/,
  },
  queue: {
    title: 'Queue',
    purpose: 'Work the outreach steps that are due today: review and send reminders, log calls, complete tasks.',
    match: /\/sequences\/queue/,
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
export function Upcoming({ section }: { section: UpcomingSection }) {
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

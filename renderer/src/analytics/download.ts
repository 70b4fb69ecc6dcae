import { ApiError, type Problem } from '../api/client';
import { useSession } from '../state/session';

/** The file name from a Content-Disposition header, else the fallback. */
export function attachmentName(header: string | null, fallback: string): string {
  const match = header ? /filename="?([^";]+)"?/i.exec(header) : null;
  return match ? match[1] : fallback;
}

/**
 * Asks the server for the aging report file and saves it. The typed client reads JSON; a file is
 * read as a blob and handed to the browser's download (the desktop app's window saves it the same
 * way, with its own Save dialog).
 */
export async function downloadAgingReport(companyId: string, format: 'csv' | 'xlsx', asOf: string): Promise<string> {
  const { baseUrl, token } = useSession.getState();
  const res = await fetch(`${baseUrl}/api/companies/${encodeURIComponent(companyId)}/ar-aging/report-export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
    body: JSON.stringify({ format, as_of: asOf }),
  });
  if (!res.ok) {
    const problem = (await res.json().catch(() => null)) as Problem | null;
    throw new ApiError(res.status, problem, problem?.detail ?? `The export failed with ${res.status}`);
  }
  const name = attachmentName(res.headers.get('content-disposition'), `aging-${asOf}.${format}`);
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

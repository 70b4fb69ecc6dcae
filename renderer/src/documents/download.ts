import { ApiError, type Problem } from '../api/client';
import { useSession } from '../state/session';
import { missingCharactersNote } from './missing';

/** The name the server gave (RFC 6266 filename* first, so names in any script survive), else the fallback. */
export function pdfFileName(header: string | null, fallback: string): string {
  const encoded = header ? /filename\*=UTF-8''([^;]+)/i.exec(header) : null;
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1]);
    } catch {
      // A malformed encoding falls through to the plain name.
    }
  }
  const plain = header ? /filename="?([^";]+)"?/i.exec(header) : null;
  return plain ? plain[1] : fallback;
}

/** An API file read with the session's token (the typed client reads JSON only). */
export async function fetchFile(path: string): Promise<{ blob: Blob; name: string | null; missingNote: string | null }> {
  const { baseUrl, token } = useSession.getState();
  const res = await fetch(`${baseUrl}${path}`, { headers: token ? { authorization: `Token ${token}` } : {} });
  if (!res.ok) {
    const problem = (await res.json().catch(() => null)) as Problem | null;
    throw new ApiError(res.status, problem, problem?.detail ?? `The file could not be made (${res.status})`);
  }
  return { blob: await res.blob(), name: res.headers.get('content-disposition'), missingNote: missingCharactersNote(res.headers.get('x-ardesk-missing-characters')) };
}

/** Saves a PDF the API makes; the desktop window asks where, a browser puts it in Downloads. Returns its name, and what it could not print. */
export async function downloadPdf(path: string, fallback: string): Promise<{ name: string; missingNote: string | null }> {
  const { blob, name: disposition, missingNote } = await fetchFile(path);
  const name = pdfFileName(disposition, fallback);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return { name, missingNote };
}

/** A multipart PUT (the logo), its refusal read as the typed client reads one. */
export async function putForm(path: string, form: FormData): Promise<unknown> {
  const { baseUrl, token } = useSession.getState();
  const res = await fetch(`${baseUrl}${path}`, { method: 'PUT', body: form, headers: { accept: 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) } });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, body as Problem | null, (body as Problem | null)?.detail ?? `The upload failed with ${res.status}`);
  return body;
}

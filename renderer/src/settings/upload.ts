import { ApiError, type Problem } from '../api/client';
import { useSession } from '../state/session';

/**
 * A multipart POST with upload progress (0..1). XMLHttpRequest, because fetch reports no upload
 * progress; the answer is read as the typed client reads it (problem+json becomes an ApiError).
 */
export function uploadForm<T>(path: string, fields: Record<string, string | Blob>, onProgress?: (fraction: number) => void): Promise<T> {
  const { baseUrl, token } = useSession.getState();
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${baseUrl}${path}`);
    if (token) xhr.setRequestHeader('authorization', `Token ${token}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress?.(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(0, null, 'The local ardesk server cannot be reached'));
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else {
        const problem = body && typeof body === 'object' && 'status' in body ? (body as Problem) : null;
        reject(new ApiError(xhr.status, problem, problem?.detail ?? `The upload failed with ${xhr.status}`));
      }
    };
    xhr.send(form);
  });
}

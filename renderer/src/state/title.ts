import { useEffect } from 'react';
import { create } from 'zustand';

/**
 * The document title names what is on screen and the company: "INV-001 · Invoices · Acme · ardesk".
 * The Frame sets the section and company; a page adds what it shows (an invoice, a customer).
 */
export const APP_NAME = 'ardesk';

export function documentTitle(parts: Array<string | null | undefined>): string {
  return [...parts.filter((p): p is string => !!p && p.trim() !== ''), APP_NAME].join(' · ');
}

export const usePageDetail = create<{ detail: string | null }>(() => ({ detail: null }));

/** While the calling component is mounted, the title leads with `detail`. */
export function usePageTitle(detail: string | null | undefined): void {
  useEffect(() => {
    usePageDetail.setState({ detail: detail ?? null });
    return () => usePageDetail.setState({ detail: null });
  }, [detail]);
}

/** For screens outside the Frame (sign in, first launch, errors). */
export function useDocumentTitle(parts: Array<string | null | undefined>): void {
  const title = documentTitle(parts);
  useEffect(() => {
    document.title = title;
  }, [title]);
}

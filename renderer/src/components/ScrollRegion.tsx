import type { ReactNode } from 'react';

/** A box that scrolls a wide or long table: focusable and named, so the keyboard can scroll it too. */
export function ScrollRegion({ label, className = 'table-scroll', children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div className={className} tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

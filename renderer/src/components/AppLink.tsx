import type { ReactNode } from 'react';
import { useRoute } from '../state/route';

/** A link inside the app: a real address (copy, open in a new window), a plain click navigates in place. */
export function AppLink({ to, children }: { to: string; children: ReactNode }) {
  const navigate = useRoute((s) => s.navigate);
  return (
    <a
      href={to}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

import { useEffect, useState } from 'react';
import { useConnection } from '../state/connection';

/**
 * What the server last said to `load`, asked when the server is there and every `everyMs` after
 * (the frame's banners): an unreachable server keeps the last known answer, the server banner says why.
 */
export function useServerPoll<T>(load: (() => Promise<T>) | null, everyMs: number, deps: unknown[]): T | null {
  const [value, setValue] = useState<T | null>(null);
  const server = useConnection((s) => s.server);
  useEffect(() => {
    if (!load) return;
    let live = true;
    const ask = () =>
      load()
        .then((v) => live && setValue(v))
        .catch(() => undefined);
    if (server) void ask();
    const timer = setInterval(ask, everyMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
    // `load` is made anew each render; what it asks for is in `deps`.
  }, [server, everyMs, ...deps]);
  return value;
}

// Data a page reads from the bridge: loads when `load` changes (callers memoize it over what it
// depends on), keeps the previous data on screen while reloading (tables do not flicker), and
// drops answers that arrive after a newer load started.
import { useCallback, useEffect, useState } from 'react';
import { errorText } from './errors.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

interface Result<T> {
  load: () => Promise<T>;
  version: number;
  data: T | undefined;
  error: string | null;
}

export function useLoad<T>(load: () => Promise<T>): Loaded<T> {
  const [version, setVersion] = useState(0);
  const [result, setResult] = useState<Result<T> | null>(null);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => {
        if (current) setResult({ load, version, data, error: null });
      },
      (thrown: unknown) => {
        if (current)
          setResult((previous) => ({
            load,
            version,
            data: previous?.data,
            error: errorText(thrown),
          }));
      },
    );
    return () => {
      current = false;
    };
  }, [load, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return {
    data: result?.data,
    error: result?.error ?? null,
    loading: result === null || result.load !== load || result.version !== version,
    reload,
  };
}

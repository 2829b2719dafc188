import { useEffect, useState } from 'react';

/** `value` once it has stayed the same for `delayMs`: a search box asks the service as typing pauses. */
export function useDebounced<Value>(value: Value, delayMs = 250): Value {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

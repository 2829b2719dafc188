/**
 * A wait with a bound: whether `running` is fulfilled within `ms` (true) or still under way when
 * they are spent (false). A rejection within them rejects. The timer is cleared either way, so a
 * bounded wait that ended early leaves nothing behind to hold the process.
 */
export async function endsWithin(running: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([running.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

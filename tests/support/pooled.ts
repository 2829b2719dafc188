/** Runs `job` for 0 … count-1 with at most `concurrency` at once; the results in index order. */
export async function pooled<T>(count: number, concurrency: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await job(index);
      }
    }),
  );
  return results;
}

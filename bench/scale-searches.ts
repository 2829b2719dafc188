/**
 * The member searches of `npm run bench:scale` against the baseline's, written by hand on the same
 * word index (bench/baseline/search.ts), the baseline with the service's per-request duties
 * (BASELINE_DUTIES). Each search's first answer must be the same from both, its body and its Link
 * to the next page; anything else stops the bench. Then each search is loaded on one and the other
 * in turns, the order alternating from round to round (as `npm run bench:ab` does), so that the
 * machine's drift falls on both alike: the median requests per second of each, their ratio, and
 * the p99 of each. The read by slug is compared with the read by id the same way (compareReads).
 */
import autocannon from 'autocannon';

export interface SearchLoad {
  name: string;
  path: string;
  headers: Record<string, string>;
  connections: number;
}

export interface SearchComparison {
  name: string;
  serviceRequestsPerSecond: number;
  baselineRequestsPerSecond: number;
  /** The service's rate over the baseline's. */
  ratio: number;
  serviceP99Ms: number;
  baselineP99Ms: number;
}

interface Run {
  requestsPerSecond: number;
  p99Ms: number;
}

const ROUNDS = 2;

async function firstAnswer(baseUrl: string, { path, headers }: SearchLoad) {
  const response = await fetch(`${baseUrl}${path}`, { headers });
  return { status: response.status, link: response.headers.get('link'), body: await response.text() };
}

async function assertSameAnswer(serviceUrl: string, baselineUrl: string, load: SearchLoad): Promise<void> {
  const [service, baseline] = [await firstAnswer(serviceUrl, load), await firstAnswer(baselineUrl, load)];
  if (service.status !== 200 || JSON.stringify(service) !== JSON.stringify(baseline)) {
    throw new Error(
      `${load.name}: the baseline's answer differs from the service's\nservice: ${JSON.stringify(service).slice(0, 500)}\nbaseline: ${JSON.stringify(baseline).slice(0, 500)}`,
    );
  }
}

async function loadOnce(baseUrl: string, load: SearchLoad, seconds: { warmup: number; duration: number }) {
  const run = (duration: number) =>
    autocannon({ url: `${baseUrl}${load.path}`, headers: load.headers, connections: load.connections, duration });
  if (seconds.warmup > 0) await run(seconds.warmup);
  const result = await run(seconds.duration);
  if (result.non2xx || result.errors) {
    throw new Error(`${load.name} at ${baseUrl}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99 };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Two loads run in turns, the order alternating from round to round: the runs of each. */
async function inTurns(first: () => Promise<Run>, second: () => Promise<Run>): Promise<[Run[], Run[]]> {
  const runs: [Run[], Run[]] = [[], []];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
    for (const which of order) runs[which].push(await (which === 0 ? first() : second()));
  }
  return runs;
}

const medianRate = (runs: Run[]) => median(runs.map((run) => run.requestsPerSecond));
const medianP99 = (runs: Run[]) => median(runs.map((run) => run.p99Ms));

export async function compareSearches(
  serviceUrl: string,
  baselineUrl: string,
  loads: SearchLoad[],
  seconds: { warmup: number; duration: number },
): Promise<SearchComparison[]> {
  const comparisons: SearchComparison[] = [];
  for (const load of loads) {
    await assertSameAnswer(serviceUrl, baselineUrl, load);
    const [service, baseline] = await inTurns(
      () => loadOnce(serviceUrl, load, seconds),
      () => loadOnce(baselineUrl, load, seconds),
    );
    comparisons.push({
      name: load.name,
      serviceRequestsPerSecond: Math.round(medianRate(service)),
      baselineRequestsPerSecond: Math.round(medianRate(baseline)),
      ratio: Math.round((medianRate(service) / medianRate(baseline)) * 100) / 100,
      serviceP99Ms: medianP99(service),
      baselineP99Ms: medianP99(baseline),
    });
  }
  return comparisons;
}

/** One request against another on the same service, in turns: the second's rate over the first's. */
export interface ReadComparison {
  name: string;
  requestsPerSecond: [number, number];
  ratio: number;
  p99Ms: [number, number];
}

/**
 * `second` against `first` on the service at `baseUrl`, in turns as the searches are: for a target
 * that is one request's rate against another's (the read by slug against the read by id), which
 * two runs one after the other cannot tell apart from the machine's drift.
 */
export async function compareReads(
  baseUrl: string,
  first: SearchLoad,
  second: SearchLoad,
  seconds: { warmup: number; duration: number },
): Promise<ReadComparison> {
  const [firstRuns, secondRuns] = await inTurns(
    () => loadOnce(baseUrl, first, seconds),
    () => loadOnce(baseUrl, second, seconds),
  );
  return {
    name: `${second.name} against ${first.name}`,
    requestsPerSecond: [Math.round(medianRate(firstRuns)), Math.round(medianRate(secondRuns))],
    ratio: Math.round((medianRate(secondRuns) / medianRate(firstRuns)) * 100) / 100,
    p99Ms: [medianP99(firstRuns), medianP99(secondRuns)],
  };
}

/**
 * A counting semaphore, first come first served, whose waits end at a deadline with the error its
 * owner gives (the service's: 503, admission.ts). A module that imports nothing, so that the
 * benchmark's baseline runs on the same gate without loading the service's errors and ORM. Why not
 * async-mutex's Semaphore (used here before): a free slot should cost a counter, but each of its
 * runs went through its generator-based awaiter and a `withTimeout` wrapper made per call, on every
 * transaction, which showed in the profiles of `npm run bench:ab`.
 */
export class Gate {
  #free: number;
  readonly #size: number;
  readonly #waiting: Array<() => void> = [];
  readonly #late: () => Error;

  constructor(size: number, late: () => Error) {
    this.#size = this.#free = size;
    this.#late = late;
  }

  /** Nobody holds it or waits for it. */
  get idle(): boolean {
    return this.#free === this.#size && this.#waiting.length === 0;
  }

  /** Runs `work` holding a slot: at once when one is free, else in turn, unless the deadline comes first. */
  async run<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await this.#turn(deadline);
    try {
      return await work();
    } finally {
      // The slot goes straight to the next in line, so that no newcomer takes it first.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }

  #turn(deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(admit), 1);
        reject(this.#late());
      }, deadline - Date.now());
      this.#waiting.push(admit);
    });
  }
}

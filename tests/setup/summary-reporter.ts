/** Ends the run with one plain line, `N passed, N failed, N skipped`, that any CI log reader understands. */
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';

/** A test that never ran because a hook of a block around it failed (a missing need, tests/support/needs.ts). */
function blockFailed(test: TestCase): boolean {
  for (let block = test.parent; block.type === 'suite'; block = block.parent) {
    if (block.state() === 'failed') return true;
  }
  return false;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed' || blockFailed(test)) failedTests++;
        else counts.skipped++;
      }
      // A file that failed to load, or whose hooks failed, fails even where no test did.
      counts.failed += failedTests || (module.state() === 'failed' ? 1 : 0);
    }
    console.log(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}

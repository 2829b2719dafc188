/** The baseline as it is measured: bundled like the service, so that neither pays TypeScript stripping or module resolution. */
import { dirname, join } from 'node:path';
import { bundle } from '../server/build.ts';
import { projectRoot } from '../tests/support/process.ts';

export const BASELINE_ENTRY = join('dist', 'bench', 'baseline.js');

export const buildBaseline = () =>
  bundle(join(projectRoot, 'bench', 'baseline.ts'), join(projectRoot, dirname(BASELINE_ENTRY)));

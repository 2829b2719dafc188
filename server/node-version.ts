/**
 * The service needs Node.js 24 (package.json's engines; `npm ci` installs it in node_modules, and
 * every npm script runs on it). Started with an older `node`, as `node dist/server/main.js` does
 * where the system's Node comes first on the PATH, it would die on the first API that version
 * lacks, with a stack trace. server/main.ts calls this before anything else, so it must itself run
 * on old versions: plain JavaScript, no newer API.
 */
export const NEEDED_NODE_MAJOR = 24;

export function exitUnlessNodeIsRecentEnough(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NEEDED_NODE_MAJOR) return;
  console.error(
    `This is Node.js ${process.version} (${process.execPath}); the service needs Node.js ${NEEDED_NODE_MAJOR}: ` +
      `run npm start, or node_modules/.bin/node dist/server/main.js (npm ci installs it there)`,
  );
  process.exit(1);
}

/**
 * `npm run bench:tokens`: CPU time per HS256 verification, jose's `jwtVerify` (WebCrypto, key
 * imported once) against the service's node:crypto verifier (server/platform/auth/hs256.ts), same token and
 * claim checks. The figures behind the choice documented in hs256.ts.
 */
import { jwtVerify } from 'jose';
import { hs256Verifier } from '../server/platform/auth/hs256.ts';
import { TEST_SECRET, tokenFor } from '../tests/support/tokens.ts';

const VERIFICATIONS = 20_000;
const ROUNDS = 3;

const secret = new TextEncoder().encode(TEST_SECRET);
const claimChecks = { requiredClaims: ['exp'], clockTolerance: 30 };
const token = await tokenFor('bench-user', { expiresIn: '1h' });
const webCryptoKey = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
const verifyWithNodeCrypto = hs256Verifier(secret, claimChecks);

const cpuMicroseconds = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function microsecondsPerToken(verify: () => Promise<unknown>): Promise<number> {
  const started = cpuMicroseconds();
  for (let done = 0; done < VERIFICATIONS; done++) await verify();
  return Math.round(((cpuMicroseconds() - started) / VERIFICATIONS) * 10) / 10;
}

for (let round = 1; round <= ROUNDS; round++) {
  const jose = await microsecondsPerToken(() =>
    jwtVerify(token, webCryptoKey, { ...claimChecks, algorithms: ['HS256'] }),
  );
  const nodeCrypto = await microsecondsPerToken(() => Promise.resolve(verifyWithNodeCrypto(token)));
  console.log(`round ${round}: jose (WebCrypto) ${jose} µs, node:crypto ${nodeCrypto} µs of CPU per token`);
}

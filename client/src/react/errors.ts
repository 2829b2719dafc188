/** What a component shows of a failed call: the service's own message, and its field issues by field. */
import { ApiError, toApiError } from '../index.ts';

export interface ErrorView {
  /** The service's message, or a plain one when it could not be reached. */
  message: string;
  /** The HTTP status, when the service answered. */
  status: number | undefined;
  /** The problem of each field the service named (`expires_at`, `roles.1`, …). */
  fields: Record<string, string>;
}

export function errorView(error: unknown): ErrorView {
  const failure = toApiError(error);
  if (failure instanceof ApiError) {
    const fields: Record<string, string> = {};
    for (const issue of failure.issues ?? []) fields[issue.field] ??= issue.problem;
    return { message: failure.message, status: failure.status, fields };
  }
  return {
    message: 'The service could not be reached. Check the connection and try again.',
    status: undefined,
    fields: {},
  };
}

/** Whether the service refused the token itself (missing, expired, forged): time to sign in again. */
export const isSignedOut = (error: unknown) => errorView(error).status === 401;

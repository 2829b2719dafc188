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

/**
 * The service's problems with a list field of an input (`roles`, `event_types`, …): the list's
 * own, then each item's, named by the item sent at its index (`roles.1` is about `sent[1]`).
 */
export function listProblems(
  fields: Record<string, string>,
  list: string,
  sent: readonly string[] | undefined,
): string[] {
  const items = Object.entries(fields).flatMap(([field, problem]) => {
    const index = field.startsWith(`${list}.`) ? field.slice(list.length + 1) : undefined;
    if (index === undefined || !/^\d+$/.test(index)) return [];
    const item = sent?.[Number(index)];
    return [item === undefined ? problem : `${item}: ${problem}`];
  });
  const own = fields[list];
  return own === undefined ? items : [own, ...items];
}

/**
 * The baseline's refusals, as the service answers them: a status, a code, a message and, for a
 * 400, the issues.
 */

/** A field of the request and what is wrong with it, as the service lists them in a 400's `issues`. */
export interface Issue {
  field: string;
  problem: string;
}

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues: Issue[] | undefined;
  constructor(status: number, code: string, message: string, issues?: Issue[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = issues;
  }
}
/** A response body already written as JSON. */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

export const badRequest = (message: string) => new HttpError(400, 'BAD_REQUEST', message);
export const invalid = (field: string, problem: string) =>
  new HttpError(400, 'BAD_REQUEST', `${field}: ${problem}`, [{ field, problem }]);
export const unauthorized = () => new HttpError(401, 'UNAUTHORIZED', 'Missing or invalid bearer token');
export const forbidden = (message: string) => new HttpError(403, 'FORBIDDEN', message);
export const notFound = (message: string) => new HttpError(404, 'NOT_FOUND', message);
export const conflict = (message: string) => new HttpError(409, 'CONFLICT', message);
export const unavailable = (message: string) => new HttpError(503, 'SERVICE_UNAVAILABLE', message);
export const notInOrganization = () => forbidden('You are not a member of this organization');

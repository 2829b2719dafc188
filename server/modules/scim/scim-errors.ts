/**
 * SCIM's refusals (RFC 7644 §3.12, behaviour §18): a DomainError with the `scimType` the RFC names
 * for it, which the SCIM routes put in the SCIM error body beside the status.
 */
import type { ErrorCode } from '../../../shared/errors.ts';
import { DomainError } from '../../platform/errors.ts';
import { ERROR_SCHEMA } from './schemas.ts';

export type ScimType = 'uniqueness' | 'invalidFilter' | 'invalidValue' | 'mutability' | 'noTarget' | 'invalidPath';

export class ScimProblem extends DomainError {
  readonly scimType: ScimType | undefined;

  constructor(code: ErrorCode, scimType: ScimType | undefined, message: string) {
    super(code, message);
    this.scimType = scimType;
  }
}

export const invalidFilter = (why: string) => new ScimProblem('BAD_REQUEST', 'invalidFilter', `Invalid filter: ${why}`);
export const invalidValue = (why: string) => new ScimProblem('BAD_REQUEST', 'invalidValue', why);
export const noTarget = (why: string) => new ScimProblem('BAD_REQUEST', 'noTarget', why);
export const uniqueness = (why: string) => new ScimProblem('CONFLICT', 'uniqueness', why);
export const mutability = (why: string) => new ScimProblem('CONFLICT', 'mutability', why);
export const noSuchResource = (kind: 'User' | 'Group', id: string) =>
  new ScimProblem('NOT_FOUND', undefined, `${kind} ${id} not found`);

/** SCIM's error body (RFC 7644 §3.12): `status` as a string, `scimType` where the RFC names one. */
export const scimErrorBody = (status: number, detail: string, scimType?: string) => ({
  schemas: [ERROR_SCHEMA],
  status: String(status),
  ...(scimType !== undefined && { scimType }),
  detail,
});

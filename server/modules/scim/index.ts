/** SCIM 2.0 provisioning (behaviour §18): what the SCIM routes (http/scim.ts) call. */
export {
  createUser,
  deleteUser,
  getUser,
  listUsers,
  patchUser,
  replaceUser,
  type ScimScope,
} from './scim-users.service.ts';
export { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from './scim-groups.service.ts';
export { ScimProblem } from './scim-errors.ts';
export { ERROR_SCHEMA, listResponse, resourceTypes, schemaDocuments, serviceProviderConfig } from './schemas.ts';
export type { ListQuery } from './paging.ts';

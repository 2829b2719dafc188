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
export {
  createGroup,
  deleteGroup,
  excludesMembers,
  getGroup,
  listGroups,
  patchGroup,
  replaceGroup,
} from './scim-groups.service.ts';
export { ScimProblem, scimErrorBody } from './scim-errors.ts';
export {
  listResponse,
  SCIM_CONTENT_TYPE,
  SCIM_PREFIX,
  resourceTypes,
  schemaDocuments,
  serviceProviderConfig,
} from './schemas.ts';
export { refuseFilter, type ListQuery } from './paging.ts';

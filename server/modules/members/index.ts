/**
 * Members of an organization: /organization-user (the organization in the `organization_id`
 * header), and GET and PATCH .../metadata of /organizations/{organization_id}/members/{user_id};
 * one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { addMemberProcedure } from './add.ts';
import { changeRoleProcedure } from './change-role.ts';
import { memberDetailsProcedure } from './details.ts';
import { getMemberProcedure } from './get.ts';
import { listMembersProcedure, membersPageProcedure } from './list.ts';
import { removeMemberProcedure } from './remove.ts';
import { updateMemberMetadataProcedure } from './update-metadata.ts';

export const membersRouter = router({
  add: addMemberProcedure,
  changeRole: changeRoleProcedure,
  remove: removeMemberProcedure,
  get: getMemberProcedure,
  list: listMembersProcedure,
  page: membersPageProcedure,
  details: memberDetailsProcedure,
  updateMetadata: updateMemberMetadataProcedure,
});

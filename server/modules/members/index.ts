/** Members of the organization named by the `organization_id` header: /organization-user, one procedure a file. */
import { router } from '../../platform/rpc/init.ts';
import { addMemberProcedure } from './add.ts';
import { changeRoleProcedure } from './change-role.ts';
import { getMemberProcedure } from './get.ts';
import { listMembersProcedure, membersPageProcedure } from './list.ts';
import { removeMemberProcedure } from './remove.ts';

export const membersRouter = router({
  add: addMemberProcedure,
  changeRole: changeRoleProcedure,
  remove: removeMemberProcedure,
  get: getMemberProcedure,
  list: listMembersProcedure,
  page: membersPageProcedure,
});

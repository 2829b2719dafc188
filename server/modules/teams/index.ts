/**
 * An organization's teams (behaviour §12): /organizations/{organization_id}/teams and /teams (also
 * under /api), one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { addTeamMemberProcedure } from './add-member.ts';
import { createTeamProcedure } from './create.ts';
import { getTeamProcedure } from './get.ts';
import { listTeamsProcedure, teamsPageProcedure } from './list.ts';
import { listTeamMembersProcedure, teamMembersPageProcedure } from './members.ts';
import { myTeamsProcedure } from './mine.ts';
import { removeTeamMemberProcedure } from './remove-member.ts';
import { removeTeamProcedure } from './remove.ts';
import { updateTeamProcedure } from './update.ts';

export const teamsRouter = router({
  list: listTeamsProcedure,
  page: teamsPageProcedure,
  create: createTeamProcedure,
  get: getTeamProcedure,
  update: updateTeamProcedure,
  remove: removeTeamProcedure,
  members: listTeamMembersProcedure,
  membersPage: teamMembersPageProcedure,
  addMember: addTeamMemberProcedure,
  removeMember: removeTeamMemberProcedure,
  mine: myTeamsProcedure,
});
